import { describe, expect, it } from 'vitest'
import { resolveRunnerOptions, runnerFlags, RUNNERS } from '../../src/config/runners.js'
import { type FlakeproofVitestOptions, VITEST_FLAGS } from '../../src/config/vitest-options.js'

const resolvePlaywright = (options: FlakeproofVitestOptions, args: string[]) => resolveRunnerOptions(RUNNERS.playwright, options, args, {}, '1.65.1')

describe('the Playwright flags (src/config/runners.ts)', () => {
  it('are every flag but observing and flakeproof’s own order', () => {
    // gaps: --flaky-observe, --flaky-slow-repeat, --flaky-gap-ms; seed: --flaky-seed; shuffle: --flaky-shuffle.
    const refused = ['--flaky-observe', '--flaky-slow-repeat', '--flaky-gap-ms', '--flaky-seed', '--flaky-shuffle']
    expect(Object.keys(runnerFlags(RUNNERS.playwright)).sort()).toEqual(Object.keys(VITEST_FLAGS).filter((f) => !refused.includes(f)).sort())
  })

  it.each([
    ['measuring', ['--flaky-repeat', '20', '--project', 'desktop'], { repeat: 20 }],
    ['rounds under conditions', ['--flaky-repeat', '2', '--flaky-rounds', '3', '--flaky-divergence', '--flaky-load'], { repeat: 2, rounds: 3, divergence: true, load: true }],
    ['a proof from the committed policy', ['--flaky-proof', '--flaky-policy', 'e2e.policy.json'], { proof: true, policy: 'e2e.policy.json' }],
    ['enforcing', ['--flaky-enforce', '--flaky-update-policy'], { enforce: true, updatePolicy: true }],
    // 5 min = 300 000 ms.
    ['a time budget', ['--flaky-budget', '5m'], { budget: 300_000 }],
  ])('takes %s', (_name, args, expected) => {
    expect(resolvePlaywright({}, args)).toMatchObject(expected)
  })

  it.each([
    // The refusal says why Playwright itself rules observing out, not that it is work still to do.
    [['--flaky-repeat', '20', '--flaky-observe'], "--flaky-observe is not available with Playwright: it needs an adapter that rests between repetitions of a test (observing), which flakeproof's Playwright adapter does not do: every copy of --repeat-each runs in a worker of its own"],
    [['--flaky-seed', '3'], "--flaky-seed is not available with Playwright: it needs an adapter that orders the tests inside each file by a seed of its own, which flakeproof's Playwright adapter does not; pass Playwright's own `--shuffle <n>` instead"],
  ])('refuses %j before any test runs, saying why', (args, message) => {
    expect(() => resolvePlaywright({}, args)).toThrow(message)
  })

  it('refuses an option the reporter cannot take, naming where it was given', () => {
    expect(() => resolvePlaywright({ observe: true, repeat: 5 }, [])).toThrow("option `observe` in the flakeproof/playwright reporter's options is not available with Playwright")
  })
})
