import { describe, expect, it } from 'vitest'
import { JEST_FLAGS, renderJestFlags, resolveJestOptions } from '../../src/config/jest-options.js'
import { renderVitestFlags, VITEST_FLAGS } from '../../src/config/vitest-options.js'

// The defaults of VitestOptionsSchema (src/config/vitest-options.ts), which the Jest options share.
const defaults = { gapMs: 2000, observe: false, slowRepeat: 20, confidence: 0.95, outDir: '.flakeproof', outAnywhere: false, failOnFlaky: false, proof: false }

describe('resolveJestOptions', () => {
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
  ])('%s', (_name, options, args, env, expected) => {
    const resolved = resolveJestOptions(options, args, env)
    expect(resolved).toEqual({ ...defaults, ...expected })
    expect(resolved).not.toHaveProperty('seed')
  })

  it.each([
    [{}, ['--flaky-seed', '3'], 'unknown flag --flaky-seed (for Jest, pass its own `--randomize --seed <n>`)'],
    [{}, ['--flaky-seed=3'], 'unknown flag --flaky-seed'],
    [{}, ['--flaky-rep', '3'], 'unknown flag --flaky-rep; flakeproof\'s Jest flags are --flaky-repeat,'],
    [{ repeat: 5, seed: 1 } as never, [], 'unknown option `seed` in the flakeproof/jest/reporter options'],
    [{}, ['--flaky-repeat', '0'], '--flaky-repeat must be a whole number from 1 to 1000000 (got 0)'],
    [{ repeat: 5, confidence: 1 }, [], 'must be a number strictly between 0 and 1 (got 1)'],
  ])('refuses %j %j', (options, args, message) => {
    expect(() => resolveJestOptions(options, args, {})).toThrow(message)
  })
})

describe('the Jest flags', () => {
  it("are Vitest's entries, whose meaning is the same, less --flaky-seed", () => {
    const { '--flaky-seed': _seed, ...shared } = VITEST_FLAGS
    expect(JEST_FLAGS).toEqual(shared)
  })

  it("print in `flakeproof jest --help` as Vitest's lines, less --flaky-seed", () => {
    expect(renderJestFlags()).toEqual(renderVitestFlags().filter((line) => !line.includes('--flaky-seed')))
    expect(renderJestFlags()).toHaveLength(Object.keys(JEST_FLAGS).length)
  })
})
