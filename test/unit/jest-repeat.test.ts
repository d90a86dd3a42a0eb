import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { JournalLine } from '../../src/artifacts/journal.js'
import type { RepeatOptions } from '../../plugin/jest/_protocol.js'
import { type Handler, repeatHandler, type TestContextGlobals } from '../../plugin/jest/_repeat.js'
import { tempDir } from '../utils.js'

/**
 * The circus side of the Jest adapter on a hand-built test tree (the shapes of jest-circus 29 and 30:
 * TestEntry and DescribeBlock with `parent`, `children`, `mode`), without Jest: which tests are
 * copied, in which place, what the snapshot counter is at each copy, and what reaches the journal.
 */
interface Node {
  type: 'test' | 'describeBlock'
  name: string
  parent?: Node
  mode?: 'skip' | 'only' | 'todo'
  children: Node[]
  errors: unknown[]
  invocations: number
  duration?: number | null
}

function block(name: string, children: Node[], mode?: Node['mode']): Node {
  const node: Node = { type: 'describeBlock', name, children, errors: [], invocations: 0, ...(mode ? { mode } : {}) }
  for (const child of children) child.parent = node
  return node
}
const test = (name: string, mode?: Node['mode']): Node => ({ type: 'test', name, children: [], errors: [], invocations: 0, ...(mode ? { mode } : {}) })

const journalDir = tempDir()
const counters = new Map<string, number>()
const snapshotState = { _counters: counters, _snapshotData: {} as Record<string, string>, _inlineSnapshots: [] as unknown[], added: 0, matched: 0, updated: 0 }
let handler: Handler

/** A handler as flakeproof's runner makes one for a test file, with these RepeatOptions. */
function handlerWith(overrides: Partial<RepeatOptions> = {}): Handler {
  const options: RepeatOptions = { mode: 'measure', repeat: 3, slowRepeat: 0, gapMs: 0, assignmentSeed: 0, proofRuns: {}, retries: {}, quarantined: [], journalDir, run: '1', idRoot: '/project', runners: {}, circus: '', locate: false, ...overrides }
  process.env.FLAKEPROOF_JEST = JSON.stringify(options)
  const globals = {
    expect: { getState: () => ({ testPath: '/project/tests/a.test.js', snapshotState }) },
    console: { log: () => {} },
  } as unknown as TestContextGlobals
  return repeatHandler(globals, { project: 'web' }) as Handler
}

/** Every line of the journals in `dir`. */
const journalLines = (dir: string): JournalLine[] =>
  readdirSync(dir).flatMap((file) =>
    readFileSync(join(dir, file), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as JournalLine),
  )

beforeAll(() => {
  handler = handlerWith()
})
afterAll(() => {
  delete process.env.FLAKEPROOF_JEST
})

const names = (node: Node): string[] => node.children.map((c) => (c.type === 'describeBlock' ? `[${c.name}: ${names(c).join(', ')}]` : c.name))

describe('the repetition handler at run_start', () => {
  it.each([
    // Three copies of each selected test, in place; skip and todo stay single.
    ['no filter', null, false, ['same', 'same', 'same', '[suite: skipped, kept, kept, kept, to do]', 'same', 'same', 'same']],
    // circus' own rule: `-t` matches "describe names + test name" joined by spaces.
    ['-t "suite kept$"', /suite kept$/, false, ['same', '[suite: skipped, kept, kept, kept, to do]', 'same']],
    // With a focused test (the first), unfocused ones (mode undefined) are skipped by circus: not copied.
    ['focus', null, true, ['same', 'same', 'same', '[suite: skipped, kept, to do]', 'same']],
  ])('%s', async (_name, pattern, focused, expected) => {
    const root = block('ROOT_DESCRIBE_BLOCK', [test('same'), block('suite', [test('skipped', 'skip'), test('kept'), test('to do', 'todo')]), test('same')])
    if (focused) (root.children[0] as Node).mode = 'only'
    await handler({ name: 'run_start' }, { rootDescribeBlock: root as never, hasFocusedTests: focused, testNamePattern: pattern, seed: 1 })
    expect(names(root)).toEqual(expected)
  })
})

describe('copies at run time', () => {
  it('start each copy from the snapshot count of the first, and journal one line per copy under ids of their own', async () => {
    const root = block('ROOT_DESCRIBE_BLOCK', [test('same'), test('same')])
    await handler({ name: 'run_start' }, { rootDescribeBlock: root as never, hasFocusedTests: false, testNamePattern: null, seed: 1 })
    // An earlier test of the same name used key `same 1`: every copy of this one starts after it.
    counters.set('same', 1)
    const seen: (number | undefined)[] = []
    for (const [index, copy] of root.children.entries()) {
      if (index === 3) counters.set('same', 1) // the second test `same` starts where the first left circus' counter
      await handler({ name: 'test_start', test: copy as never }, {} as never)
      seen.push(counters.get('same'))
      counters.set('same', (counters.get('same') ?? 0) + 1) // toMatchSnapshot counts
      copy.invocations = 1
      copy.duration = 2
      if (index === 1) copy.errors = [[new Error('boom')]]
      await handler({ name: 'test_done', test: copy as never }, {} as never)
    }
    expect(seen).toEqual([1, 1, 1, 1, 1, 1])
    const lines = journalLines(journalDir)
    const done = lines.filter((l) => l.done)
    expect(done.map((l) => [l.id, l.done?.ok])).toEqual([
      ['[web] tests/a.test.js > same', true],
      ['[web] tests/a.test.js > same', false],
      ['[web] tests/a.test.js > same', true],
      ['[web] tests/a.test.js > same (#2)', true],
      ['[web] tests/a.test.js > same (#2)', true],
      ['[web] tests/a.test.js > same (#2)', true],
    ])
    expect(done[1]?.done).toMatchObject({ error: 'boom', elapsedMs: 2, mode: 'fast', gapMs: 0 })
    expect(lines.filter((l) => l.end).map((l) => l.id)).toEqual(['[web] tests/a.test.js > same', '[web] tests/a.test.js > same (#2)'])
    expect(lines.find((l) => l.identity)?.identity).toEqual({ project: 'web', file: 'tests/a.test.js', path: ['same'] })
  })

  // The line is read from the test's declaration stack, which Jest source-maps frame by frame: only a
  // run that annotates on GitHub asks for it (RepeatOptions.locate).
  it.each([
    [true, 7],
    [false, undefined],
  ])('journals the line each test is declared at when locate is %s: %s', async (locate, line) => {
    const dir = tempDir()
    // A run of its own (`run`): the runner keeps one journal writer per run in its process.
    const located = handlerWith({ locate, journalDir: dir, repeat: 1, run: `located-${locate}` })
    const declared = { ...test('declared'), asyncError: { stack: 'Error:\n    at _addTest (/project/node_modules/jest-circus/build/index.js:1:1)\n    at Object.<anonymous> (/project/tests/a.test.js:7:3)' } }
    const root = block('ROOT_DESCRIBE_BLOCK', [declared as Node])
    await located({ name: 'run_start' }, { rootDescribeBlock: root as never, hasFocusedTests: false, testNamePattern: null, seed: 1 })
    await located({ name: 'test_start', test: root.children[0] as never }, {} as never)
    expect(journalLines(dir).find((l) => l.identity)?.line).toBe(line)
  })
})

describe('snapshots of copies', () => {
  it('count every named hint from where the first copy started, and undo what a later copy wrote', async () => {
    const root = block('ROOT_DESCRIBE_BLOCK', [test('named')])
    await handler({ name: 'run_start' }, { rootDescribeBlock: root as never, hasFocusedTests: false, testNamePattern: null, seed: 1 })
    counters.clear()
    Object.assign(snapshotState, { _snapshotData: { 'named: hint 1': 'committed' }, _inlineSnapshots: [], added: 0, matched: 0, updated: 0 })
    const seen: string[] = []
    for (const copy of root.children) {
      await handler({ name: 'test_start', test: copy as never }, {} as never)
      seen.push(JSON.stringify([...counters]))
      // What toMatchSnapshot('hint'), toMatchSnapshot() and toMatchInlineSnapshot() do to the state.
      counters.set('named: hint', (counters.get('named: hint') ?? 0) + 1)
      counters.set('named', (counters.get('named') ?? 0) + 1)
      snapshotState._snapshotData['named 1'] = 'written by a copy'
      snapshotState._inlineSnapshots.push({ frame: 'tests/a.test.js:3:9' })
      snapshotState.matched++
      snapshotState.added++
      copy.duration = 1
      await handler({ name: 'test_done', test: copy as never }, {} as never)
    }
    // Every copy starts with no count for either name; the key `named: hint 1` is compared three times.
    expect(seen).toEqual(['[]', '[]', '[]'])
    // The first copy's write, match and inline snapshot stand (as one execution of the test); the others' are undone.
    expect(snapshotState).toMatchObject({ _snapshotData: { 'named: hint 1': 'committed', 'named 1': 'written by a copy' }, matched: 1, added: 1 })
    expect(snapshotState._inlineSnapshots).toHaveLength(1)
  })
})

/** Whether `done` settles before the event loop's next turn: a rest (realDelay) keeps it pending. */
const settlesAtOnce = (done: void | Promise<void>): Promise<boolean> => Promise.race([Promise.resolve(done).then(() => true), new Promise<boolean>((resolve) => setImmediate(() => resolve(false)))])

describe('the rest before a gapped copy', () => {
  // Jest's --randomize (flakeproof's --flaky-shuffle) shuffles a block's children, copies included,
  // after run_start: a copy's index no longer says what runs after it. The rest followed a copy whose
  // index was not the last fast one whenever the index after it would have been gapped, observing or
  // not: 2 s after about half the tests of a shuffled run (dom-testing-library's events.js, 289
  // tests, took 192 s instead of 3 under --flaky-rounds 2 --flaky-repeat 3 --flaky-shuffle).
  it('is not taken between shuffled copies when nothing is observed', async () => {
    const shuffled = handlerWith({ journalDir: tempDir(), run: 'shuffled', repeat: 3, slowRepeat: 0, gapMs: 2000 })
    const root = block('ROOT_DESCRIBE_BLOCK', ['a', 'b', 'c', 'd', 'e', 'f'].map((name) => test(name)))
    await shuffled({ name: 'run_start' }, { rootDescribeBlock: root as never, hasFocusedTests: false, testNamePattern: null, seed: 1 })
    // As a seed may order them: every test's last copy first.
    root.children.reverse()
    const atOnce: boolean[] = []
    for (const copy of root.children) {
      await shuffled({ name: 'test_start', test: copy as never }, {} as never)
      copy.duration = 1
      atOnce.push(await settlesAtOnce(shuffled({ name: 'test_done', test: copy as never }, {} as never)))
    }
    expect(atOnce).toEqual(root.children.map(() => true))
  })

  it('is taken right before the gapped copy of an observed test, and only there', async () => {
    const dir = tempDir()
    const observed = handlerWith({ journalDir: dir, run: 'observed', repeat: 2, slowRepeat: 1, gapMs: 2000 })
    const root = block('ROOT_DESCRIBE_BLOCK', [test('fails')])
    await observed({ name: 'run_start' }, { rootDescribeBlock: root as never, hasFocusedTests: false, testNamePattern: null, seed: 1 })
    root.children.reverse()
    // Both fast copies fail: the second one's end inserts a gapped and a fast copy, in the coin's order.
    const waited: number[] = []
    for (let i = 0; i < root.children.length; i++) {
      const copy = root.children[i] as Node
      await observed({ name: 'test_start', test: copy as never }, {} as never)
      copy.duration = 1
      if (i < 2) copy.errors = [[new Error('boom')]]
      const done = observed({ name: 'test_done', test: copy as never }, {} as never)
      if (!(await settlesAtOnce(done))) {
        waited.push(i)
        await done
      }
    }
    const modes = journalLines(dir).flatMap((l) => (l.done ? [l.done.mode] : []))
    expect([...modes].sort()).toEqual(['fast', 'fast', 'paired', 'slow'])
    // One rest, after the copy that ran just before the gapped one.
    expect(waited).toEqual([modes.indexOf('slow') - 1])
  }, 10_000)
})

describe('shuffled copies', () => {
  it('run back to back from the first one that starts: the tests are reordered, never one test\'s repetitions among others', async () => {
    const dir = tempDir()
    const shuffled = handlerWith({ journalDir: dir, run: 'gathered', repeat: 3 })
    const root = block('ROOT_DESCRIBE_BLOCK', [test('a'), test('b'), test('c')])
    await shuffled({ name: 'run_start' }, { rootDescribeBlock: root as never, hasFocusedTests: false, testNamePattern: null, randomize: true, seed: 1 })
    // As Jest's --randomize may leave them after run_start: copies of the three tests interleaved.
    const [a0, a1, a2, b0, b1, b2, c0, c1, c2] = root.children as Node[]
    root.children.splice(0, 9, ...([b1, a0, c2, b0, a2, c0, b2, a1, c1] as Node[]))
    const ran: string[] = []
    // circus' own walk: for…of over the block's array, which sees it changed in place.
    for (const copy of root.children) {
      ran.push(copy.name)
      await shuffled({ name: 'test_start', test: copy as never }, {} as never)
      copy.duration = 1
      await shuffled({ name: 'test_done', test: copy as never }, {} as never)
    }
    expect(ran).toEqual(['b', 'b', 'b', 'a', 'a', 'a', 'c', 'c', 'c'])
    expect(root.children).toHaveLength(9)
    expect(journalLines(dir).flatMap((l) => (l.done ? [l.id.slice(-1)] : []))).toEqual(['b', 'b', 'b', 'a', 'a', 'a', 'c', 'c', 'c'])
  })
})
