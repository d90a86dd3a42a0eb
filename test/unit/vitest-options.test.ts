import { describe, expect, it } from 'vitest'
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { argsAfterSeparator, extractVitestFlags, resolveOutDir, resolveVitestOptions } from '../../src/config/vitest-options.js'
import { tempDir } from '../utils.js'

const defaults = { gapMs: 2000, observe: false, slowRepeat: 20, confidence: 0.95, outDir: '.flakeproof', outAnywhere: false, failOnFlaky: false, proof: false, enforce: false, updatePolicy: false, proofRequired: false, proofStrict: false, history: true, rounds: 1, divergence: false, load: false, shuffle: false }

describe('resolveVitestOptions', () => {
  it('is inactive without a repeat count or a proof', () => {
    expect(resolveVitestOptions({}, [], {})).toBeUndefined()
    expect(resolveVitestOptions({ gapMs: 10 }, ['--flaky-observe'], {})).toBeUndefined()
  })

  it.each([
    ['options', { repeat: 20 }, [], {}, { repeat: 20 }],
    ['FLAKEPROOF_REPEAT', {}, [], { FLAKEPROOF_REPEAT: '200' }, { repeat: 200 }],
    ['flags', {}, ['--flaky-repeat', '200', '--flaky-observe', '--flaky-gap-ms=150'], {}, { repeat: 200, observe: true, gapMs: 150 }],
    ['flags over env over options', { repeat: 1, outDir: 'a' }, ['--flaky-repeat', '3'], { FLAKEPROOF_REPEAT: '2' }, { repeat: 3, outDir: 'a' }],
    ['proof alone', {}, ['--flaky-proof'], {}, { proof: true }],
    // Rounds alone measure: one repetition per round, the rounds repeating the whole run.
    ['rounds alone', {}, ['--flaky-rounds', '10'], {}, { rounds: 10 }],
    ['every flag', {}, ['--flaky-repeat', '5', '--flaky-slow-repeat', '7', '--flaky-confidence', '0.99', '--flaky-out', 'o', '--flaky-fail-on-flaky'], {}, { repeat: 5, slowRepeat: 7, confidence: 0.99, outDir: 'o', failOnFlaky: true }],
    ['enforce', {}, ['--flaky-enforce', '--flaky-update-policy', '--flaky-policy', 'ci/policy.json'], {}, { enforce: true, updatePolicy: true, policy: 'ci/policy.json' }],
    ['proof required', {}, ['--flaky-proof', '--flaky-proof-required'], {}, { proof: true, proofRequired: true }],
    // 5m = 5 · 60 000 ms (src/core/duration.ts)
    ['budget', {}, ['--flaky-budget', '5m'], {}, { budget: 300_000 }],
    // CI enforces from the config; measuring on the command line sets that aside.
    ['a measurement over a configured enforce', { enforce: true }, ['--flaky-repeat', '50'], {}, { repeat: 50 }],
    ['a proof over a configured enforce', { enforce: true }, ['--flaky-proof'], {}, { proof: true }],
  ])('%s', (_name, options, args, env, expected) => {
    expect(resolveVitestOptions(options, args, env)).toEqual({ ...defaults, ...expected })
  })

  it.each([
    [{}, ['--flaky-repeat', '0'], {}, '--flaky-repeat must be a whole number from 1 to 1000000 (got 0)'],
    [{}, ['--flaky-repeat', 'lots'], {}, '--flaky-repeat must be a whole number from 1 to 1000000 (got "lots")'],
    [{}, [], { FLAKEPROOF_REPEAT: '2.5' }, 'FLAKEPROOF_REPEAT must be a whole number from 1 to 1000000 (got "2.5")'],
    // The CLI's rule for counts: plain decimal integers only, so these are refused, not read as 1e9 and 16.
    [{}, ['--flaky-repeat', '1e9'], {}, '--flaky-repeat must be a whole number from 1 to 1000000 (got "1e9")'],
    [{}, [], { FLAKEPROOF_REPEAT: '0x10' }, 'FLAKEPROOF_REPEAT must be a whole number from 1 to 1000000 (got "0x10")'],
    [{ repeat: 10, gapMs: -1 }, [], {}, 'flakeproof({ gapMs }) must be a whole number of milliseconds from 0 to 2147483647'],
    // Node's timers hold at most 2^31-1 ms; a longer gap would fire after 1 ms and record a rest that never happened.
    [{}, ['--flaky-repeat', '5', '--flaky-observe', '--flaky-gap-ms', '2147483648'], {}, '--flaky-gap-ms must be a whole number of milliseconds from 0 to 2147483647'],
    [{}, ['--flaky-repeat', '5', '--flaky-repeat', '6'], {}, '--flaky-repeat given twice (5 and 6); give it once'],
    [{ repeat: 10, confidence: 1 }, [], {}, 'flakeproof({ confidence }) must be a number strictly between 0 and 1 (got 1)'],
    [{ repeat: 10, repaet: 3 } as never, [], {}, 'unknown option `repaet` in flakeproof({...}); did you mean `repeat`?'],
    [{}, ['--flaky-repeat'], {}, '--flaky-repeat needs a value; e.g. --flaky-repeat 200'],
    [{}, ['--flaky-rep', '3'], {}, 'unknown flag --flaky-rep; did you mean --flaky-repeat?'],
    [{}, ['--flaky-repet=3'], {}, 'unknown flag --flaky-repet; did you mean --flaky-repeat?'],
    [{}, ['--flaky-zzz'], {}, "unknown flag --flaky-zzz; flakeproof's Vitest flags are --flaky-repeat, --flaky-observe,"],
    [{}, ['--flaky-observe=maybe', '--flaky-repeat', '2'], {}, '--flaky-observe must be true or false (got "maybe")'],
    [{}, ['--flaky-budget', '5 min'], {}, '--flaky-budget must be a duration such as 5m, 300s or 1h (at most 2147483647 ms) (got "5 min")'],
    [{}, ['--flaky-enforce', '--flaky-repeat', '5'], {}, '--flaky-enforce and --flaky-repeat ask for different runs (measure, proof, enforce, budget); give one of them'],
    [{ proof: true }, ['--flaky-budget', '1m'], {}, 'flakeproof({ proof }) and --flaky-budget ask for different runs'],
    [{ enforce: true, repeat: 5 }, [], {}, 'flakeproof({ enforce }) and flakeproof({ repeat }) ask for different runs'],
    [{}, ['--flaky-rounds', '0'], {}, '--flaky-rounds must be a whole number from 1 to 1000000 (got 0)'],
    [{}, ['--flaky-enforce', '--flaky-divergence'], {}, '--flaky-enforce and --flaky-divergence ask for different runs'],
    [{}, ['--flaky-shuffle'], {}, '--flaky-shuffle reseeds the order every whole-run round, so it needs --flaky-rounds 2 or more'],
    [{}, ['--flaky-budget', '5m', '--flaky-rounds', '3'], {}, '--flaky-budget and --flaky-rounds ask for different runs'],
  ])('rejects %j %j %j', (options, args, env, message) => {
    expect(() => resolveVitestOptions(options, args, env)).toThrow(message)
  })
})

describe('extractVitestFlags', () => {
  it('leaves Vitest arguments alone', () => {
    const { options, rest } = extractVitestFlags(['run', '-t', 'cache', '--flaky-repeat', '9', 'src/a.test.ts'])
    expect(options).toEqual({ repeat: 9 })
    expect(rest).toEqual(['run', '-t', 'cache', 'src/a.test.ts'])
  })
})

describe('argsAfterSeparator', () => {
  it('returns what follows --', () => {
    expect(argsAfterSeparator(['node', 'vitest', 'run', '--', '--flaky-repeat', '2'])).toEqual(['--flaky-repeat', '2'])
    expect(argsAfterSeparator(['node', 'vitest', 'run'])).toEqual([])
  })
})

describe('resolveOutDir', () => {
  const root = tempDir('flakeproof-root-')
  const outside = tempDir('flakeproof-outside-')
  writeFileSync(join(root, 'a-file'), '')
  mkdirSync(join(root, 'sub'))
  symlinkSync(outside, join(root, 'escape'))

  it.each([
    ['.flakeproof', join(root, '.flakeproof')],
    ['sub/deeper/out', join(root, 'sub/deeper/out')],
    [join(root, 'absolute-inside'), join(root, 'absolute-inside')],
  ])('takes %s inside the project root', (outDir, expected) => {
    expect(resolveOutDir(root, { outDir, outAnywhere: false })).toBe(expected)
  })

  it.each([['/etc'], ['../../x'], ['escape/out']])('refuses %s, which resolves outside the project root', (outDir) => {
    expect(() => resolveOutDir(root, { outDir, outAnywhere: false })).toThrow(/outside the project root .* --flaky-out-anywhere/)
  })

  it('takes a folder outside the root when asked to on purpose', () => {
    expect(resolveOutDir(root, { outDir: outside, outAnywhere: true })).toBe(outside)
  })

  it('refuses a regular file, wherever it is', () => {
    expect(() => resolveOutDir(root, { outDir: 'a-file', outAnywhere: true })).toThrow('is a file, not a folder')
  })
})
