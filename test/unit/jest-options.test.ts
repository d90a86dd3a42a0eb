import { describe, expect, it } from 'vitest'
import { renderRunnerFlags, resolveRunnerOptions, runnerFlags, RUNNERS, takenOptions } from '../../src/config/runners.js'
import { type FlakeproofVitestOptions, renderVitestFlags, VITEST_FLAGS } from '../../src/config/vitest-options.js'

const resolveJestOptions = (options: FlakeproofVitestOptions, args: string[], env: Record<string, string>) => resolveRunnerOptions(RUNNERS.jest, options, args, env)
const JEST_FLAGS = runnerFlags(RUNNERS.jest)

// The defaults of VitestOptionsSchema (src/config/vitest-options.ts) for the options Jest's adapter takes.
const defaults = { enforce: false, rounds: 1, divergence: false, load: false, shuffle: false, gapMs: 2000, observe: false, slowRepeat: 20, confidence: 0.95, outDir: '.flakeproof', outAnywhere: false, failOnFlaky: false, proof: false, updatePolicy: false, proofRequired: false, proofStrict: false, history: true }

describe('resolveRunnerOptions for Jest', () => {
  it('is inactive without a repeat count or a proof', () => {
    expect(resolveJestOptions({}, [], {})).toBeUndefined()
    expect(resolveJestOptions({ observe: true }, ['--flaky-gap-ms', '5'], {})).toBeUndefined()
  })

  it.each([
    ['reporter options', { repeat: 20 }, [], {}, { repeat: 20 }],
    ['FLAKEPROOF_REPEAT', {}, [], { FLAKEPROOF_REPEAT: '200' }, { repeat: 200 }],
    ['flags, Jest arguments around them', {}, ['-t', 'name$', '--flaky-repeat', '200', '--flaky-observe', '--randomize', '--seed', '7'], {}, { repeat: 200, observe: true }],
    ['flags over env over options', { repeat: 1, outDir: 'a' }, ['--flaky-repeat=3'], { FLAKEPROOF_REPEAT: '2' }, { repeat: 3, outDir: 'a' }],
    ['proof alone', {}, ['--flaky-proof'], {}, { proof: true }],
    // Jest's adapter gives every failed copy its signature, and attributes its everyday runs (docs/attribution.md).
    ['a signature filter and a base branch', { repeat: 5 }, ['--flaky-signature', 'STALE', '--flaky-base', 'trunk'], {}, { repeat: 5, signature: 'STALE', base: 'trunk' }],
    // Jest's everyday runs keep history (docs/contracts.md §11): the option is Jest's too.
    ['history off', { repeat: 5, history: false }, [], {}, { repeat: 5, history: false }],
  ])('%s', (_name, options, args, env, expected) => {
    const resolved = resolveJestOptions(options, args, env)
    // What `flakeproof jest` hands its reporter: the options Jest's adapter takes.
    expect(resolved && takenOptions(RUNNERS.jest, resolved)).toEqual({ ...defaults, ...expected })
  })

  it.each([
    // `rep` begins one flag's name only; `--flaky-xyz` is near none, so every flag Jest takes is named.
    [{}, ['--flaky-rep', '3'], 'unknown flag --flaky-rep; did you mean --flaky-repeat?'],
    [{}, ['--flaky-xyz', '3'], 'unknown flag --flaky-xyz; flakeproof\'s Jest flags are --flaky-repeat,'],
    [{ repeat: 5, confidense: 0.9 } as FlakeproofVitestOptions, [], 'unknown option `confidense` in the flakeproof/jest/reporter options; did you mean `confidence`?'],
    [{ repeat: 5, bogus: 1 } as FlakeproofVitestOptions, [], 'unknown option `bogus` in the flakeproof/jest/reporter options; options are repeat, gapMs,'],
    [{}, ['--flaky-repeat', '0'], '--flaky-repeat must be a whole number from 1 to 1000000 (got 0)'],
    [{ repeat: 5, confidence: 1 }, [], 'must be a number strictly between 0 and 1 (got 1)'],
  ])('refuses %j %j', (options, args, message) => {
    expect(() => resolveJestOptions(options, args, {})).toThrow(message)
  })
})

describe('the Jest flags', () => {
  // What the Jest adapter does: measure, observe, prove, the committed policy, budget and JUnit (docs/jest.md), a proof as hard as its measurement (docs/contracts.md §13.5), by signature and against a base branch's history (docs/attribution.md).
  const shared = [
    '--flaky-repeat',
    '--flaky-gap-ms',
    '--flaky-observe',
    '--flaky-slow-repeat',
    '--flaky-confidence',
    '--flaky-out',
    '--flaky-out-anywhere',
    '--flaky-fail-on-flaky',
    '--flaky-proof',
    '--flaky-junit',
    '--flaky-policy',
    '--flaky-update-policy',
    '--flaky-proof-required',
    '--flaky-proof-strict',
    '--flaky-budget',
    '--flaky-seed',
    '--flaky-rounds',
    '--flaky-divergence',
    '--flaky-load',
    '--flaky-load-procs',
    '--flaky-shuffle',
    '--flaky-enforce',
    '--flaky-base',
    '--flaky-signature',
  ]

  it("are Vitest's own entries, every one of them", () => {
    expect(Object.keys(JEST_FLAGS).sort()).toEqual([...shared].sort())
    for (const name of shared) expect(JEST_FLAGS[name as keyof typeof JEST_FLAGS]).toBe(VITEST_FLAGS[name as keyof typeof VITEST_FLAGS])
  })

  it("print in `flakeproof jest --help` as Vitest's lines for those flags", () => {
    expect(renderRunnerFlags(RUNNERS.jest, 80)).toEqual(renderVitestFlags(80, shared))
    const listed = renderRunnerFlags(RUNNERS.jest, 80).flatMap((line) => /^ {2}(--flaky-[a-z-]+)/.exec(line)?.[1] ?? [])
    expect(listed.sort()).toEqual([...shared].sort())
  })
})
