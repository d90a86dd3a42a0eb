import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { prepareRunDir, runDirOf } from '../../src/artifacts/run-dir.js'
import { RateFileSchema } from '../../src/artifacts/schemas.js'
import type { Repetition, ReportedTest } from '../../src/pipeline/test-evidence.js'
import { TestRunRecorder, type TestRunSettings } from '../../src/pipeline/test-run.js'
import { tempDir } from '../utils.js'

const settings = (overrides: Partial<TestRunSettings> = {}): TestRunSettings => ({
  mode: 'measure',
  command: 'vitest run',
  repeat: 10,
  observe: false,
  confidence: { value: 0.95, exact: { num: 19n, den: 20n } },
  proofRuns: {},
  lang: 'en',
  ...overrides,
})

/** What a run collected: these modules, none of their tests filtered. */
const files = (...modules: string[]) => ({ modules: new Set(modules), tests: new Set<string>() })

/** A recorder writing into `dir`, with its run folder prepared as the reporter does. */
function recorderIn(dir: string, overrides: Partial<TestRunSettings> = {}): TestRunRecorder {
  const run = runDirOf(dir)
  prepareRunDir(run)
  return new TestRunRecorder(dir, run, settings(overrides))
}

/** A test whose repetitions fail where `pattern` has an 'x': `..x..` fails the third. */
function test(name: string, pattern: string, mode: Repetition['mode'] = 'fast', file = 'a.test.ts'): ReportedTest {
  return {
    project: '',
    file,
    name,
    evidence: {
      id: `${file} > ${name}`,
      path: [name],
      order: 1,
      previousTest: null,
      worker: '1',
      seed: null,
      repetitions: [...pattern].map((c) => ({ ok: c !== 'x', elapsedMs: 1, mode, gapMs: 0, ...(c === 'x' ? { error: `BOOM ${name}` } : {}) })),
    },
  }
}

describe('TestRunRecorder', () => {
  it('counts a round as failed when any test failed its repetition of that round', () => {
    const dir = tempDir('flakeproof-unit-')
    const recorder = recorderIn(dir)
    recorder.record(test('one', '....x....x'))
    recorder.record(test('two', '....x...x.'))
    const result = recorder.finish(true, files('a.test.ts'))
    const rate = RateFileSchema.parse(JSON.parse(readFileSync(join(dir, 'rate.json'), 'utf8')))
    // Rounds 5, 9 and 10 failed: 3 of 10.
    expect(rate).toMatchObject({ trials: 10, failures: 3 })
    expect(result.tests.map((t) => [t.tally.id, t.verdict])).toEqual([
      ['a.test.ts > one', 'flaky'],
      ['a.test.ts > two', 'flaky'],
    ])
    expect(readFileSync(join(dir, 'facts.jsonl'), 'utf8').trim().split('\n')).toHaveLength(20)
  })

  it('calls a test seen in fewer rounds than were run partial, never stable or broken', () => {
    const dir = tempDir('flakeproof-unit-')
    const recorder = recorderIn(dir)
    recorder.record(test('cut short', 'xxx'))
    recorder.record(test('full', '..........'))
    const result = recorder.finish(true, files())
    expect(result.tests.map((t) => t.verdict)).toEqual(['partial', 'stable'])
  })

  it('proves each required test and tells a missing test from one filtered out', () => {
    const dir = tempDir('flakeproof-unit-')
    const proofRuns = { 'a.test.ts > ran': 3, 'a.test.ts > renamed': 3, 'b.test.ts > filtered': 3 }
    const recorder = recorderIn(dir, { mode: 'proof', proofRuns })
    recorder.record(test('ran', '...', 'proof'))
    const { proof } = recorder.finish(true, files('a.test.ts'))
    expect(proof?.tests).toMatchObject({
      'a.test.ts > ran': { status: 'ran', trials: 3, passed: true },
      'a.test.ts > renamed': { status: 'missing', passed: false },
      'b.test.ts > filtered': { status: 'not-selected', passed: true },
    })
    expect(proof?.passed).toBe(false)
  })

  it('tells missing from not-selected by project: a proof narrowed to one project ignores the other', () => {
    const dir = tempDir('flakeproof-unit-')
    const proofRuns = { '[alpha] same.test.ts > t': 3, '[beta] same.test.ts > t': 3 }
    const recorder = recorderIn(dir, { mode: 'proof', proofRuns })
    recorder.record({ ...test('t', '...', 'proof', 'same.test.ts'), project: 'alpha', evidence: { ...test('t', '...', 'proof').evidence, id: '[alpha] same.test.ts > t' } })
    const { proof } = recorder.finish(true, files('[alpha] same.test.ts'))
    expect(proof?.tests).toMatchObject({
      '[alpha] same.test.ts > t': { status: 'ran', passed: true },
      '[beta] same.test.ts > t': { status: 'not-selected', passed: true },
    })
    expect(proof?.passed).toBe(true)
  })

  it('fails a proof that ran fewer repetitions than required', () => {
    const dir = tempDir('flakeproof-unit-')
    const recorder = recorderIn(dir, { mode: 'proof', proofRuns: { 'a.test.ts > t': 5 } })
    recorder.record(test('t', '...', 'proof'))
    expect(recorder.finish(true, files('a.test.ts')).proof).toMatchObject({ passed: false, trials: 3, required: 5 })
  })
})

describe('TestRunRecorder given two tests under one id', () => {
  const twinError = 'two tests of this run have the id "a.test.ts > t": the second one\'s 1 execution(s) are left out'

  it.each([
    // A single run: the second stream of the id is refused, whatever it holds.
    ['one run', {}, [1, 1]],
    // Whole-run rounds: the same id once per round is one test; twice in round 1 is two.
    ['whole-run rounds', { wholeRuns: 2 }, [1, 1]],
  ])('%s: keeps the first stream whole, leaves the second out, and says so in an incomplete run', (_, overrides, rounds) => {
    const dir = tempDir('flakeproof-unit-')
    const recorder = recorderIn(dir, { repeat: 3, ...overrides })
    recorder.record(test('t', '.x.'), rounds[0])
    recorder.record(test('t', '.'), rounds[1])
    const result = recorder.finish(true, files('a.test.ts'))
    const rate = RateFileSchema.parse(JSON.parse(readFileSync(join(dir, 'rate.json'), 'utf8')))
    expect(rate.complete).toBe(false)
    expect(rate.tests?.map((t) => [t.id, t.trials, t.failures])).toEqual([['a.test.ts > t', 3, 1]])
    expect(rate.run_errors?.map((e) => [e.file, e.error.slice(0, twinError.length)])).toEqual([['a.test.ts', twinError]])
    expect(result.runErrors).toEqual(rate.run_errors)
    // Facts hold only the stream the numbers count: 3 lines, not 4.
    expect(readFileSync(join(dir, 'facts.jsonl'), 'utf8').trim().split('\n')).toHaveLength(3)
  })

  it('counts the same id in two rounds as one test of two rounds, with no run error', () => {
    const dir = tempDir('flakeproof-unit-')
    const recorder = recorderIn(dir, { repeat: 4, wholeRuns: 2 })
    recorder.record(test('t', '.x'), 1)
    recorder.record(test('t', '..'), 2)
    const result = recorder.finish(true, files('a.test.ts'))
    expect(result.runErrors).toEqual([])
    expect(result.tests.map((t) => [t.tally.id, t.tally.fast.trials, t.tally.fast.failures])).toEqual([['a.test.ts > t', 4, 1]])
  })
})

describe('TestRunRecorder with nothing to record', () => {
  it('leaves the previous files exactly as they were, and no run folder behind', () => {
    const dir = tempDir('flakeproof-unit-')
    writeFileSync(join(dir, 'rate.json'), 'previous')
    writeFileSync(join(dir, 'facts.jsonl'), 'previous\n')
    const result = recorderIn(dir, { repeat: 200 }).finish(true, files())
    expect(result.unchanged).toBe(true)
    expect(readFileSync(join(dir, 'rate.json'), 'utf8')).toBe('previous')
    expect(readFileSync(join(dir, 'facts.jsonl'), 'utf8')).toBe('previous\n')
    expect(readdirSync(dir).sort()).toEqual(['facts.jsonl', 'rate.json'])
  })

  it('streams facts into the run folder, not beside the previous files, until the run ends', () => {
    const dir = tempDir('flakeproof-unit-')
    writeFileSync(join(dir, 'facts.jsonl'), 'previous\n')
    const recorder = recorderIn(dir)
    recorder.record(test('one', '..........'))
    expect(readFileSync(join(dir, 'facts.jsonl'), 'utf8')).toBe('previous\n')
    recorder.finish(true, files('a.test.ts'))
    expect(readFileSync(join(dir, 'facts.jsonl'), 'utf8').trim().split('\n')).toHaveLength(10)
    expect(existsSync(runDirOf(dir).path)).toBe(false)
  })
})
