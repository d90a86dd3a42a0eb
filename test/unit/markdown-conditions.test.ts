import { describe, expect, it } from 'vitest'
import type { ConditionsFile } from '../../src/artifacts/conditions-schema.js'
import { freshRateText } from '../../src/artifacts/fresh-rate-text.js'
import { renderConditionsSection } from '../../src/artifacts/markdown-conditions.js'

const side = (label: string, trials: number, failures: number) => ({ label, trials, failures, rate: failures / trials, ci_low: 0, ci_high: 1 })

const conditions: ConditionsFile = {
  schema_version: 1,
  command: 'flakeproof vitest --flaky-rounds 4 --flaky-divergence',
  confidence: 0.95,
  rounds: [1, 2, 3, 4, 5, 6, 7, 8].map((round) => ({ round, condition: round % 2 ? 'base' : 'serial', seed: null })),
  load_procs: null,
  tests: {
    'a.test.ts > uses | the temp file': {
      comparisons: [{ kind: 'divergence', a: side('parallel (as configured)', 4, 4), b: side('serial', 4, 0), p_value: 2 / 70, significant: true, tag: 'parallel-only', trials_to_see: null, note: 'Fails \u001b[31mparallel\u001b[39m.' }],
      order: null,
      tags: ['parallel-only'],
    },
  },
}

describe('renderConditionsSection', () => {
  it('lists the rounds, one row per comparison with both counts, and each note without ANSI codes', () => {
    expect(renderConditionsSection(conditions)).toEqual([
      '## Which condition the failures follow',
      '',
      '- Rounds: 4 base, 4 serial, alternating.',
      '',
      '| test | compared | a | b | p | tag |',
      '| --- | --- | --- | --- | --- | --- |',
      '| `a.test.ts > uses \\| the temp file` | divergence | parallel (as configured) 4 of 4 | serial 0 of 4 | 0.0286 | parallel-only |',
      '',
      '- `a.test.ts > uses \\| the temp file` (**parallel-only**): Fails parallel.',
      '',
    ])
  })

  it('says nothing without conditions.json', () => {
    expect(renderConditionsSection(undefined)).toEqual([])
  })
})

describe('freshRateText', () => {
  it('gives the count, the failing rounds and the interval', () => {
    // 2 of 6 rounds; the interval is passed in as computed by describeRate.
    expect(freshRateText({ trials: 6, failures: 2, rate: 2 / 6, ci_low: 0.0968, ci_high: 0.7, failure_rounds: [3, 6] })).toBe(
      'With fresh module state (its first execution in each of 6 rounds) it failed 2 of 6 (rounds 3, 6): rate 33.3%, interval [9.7%, 70.0%]; that is its rate in an ordinary run.',
    )
  })
})
