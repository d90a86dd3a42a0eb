import { describe, expect, it } from 'vitest'
import type { ConditionsFile } from '../../src/artifacts/conditions-schema.js'
import { freshRateText } from '../../src/artifacts/fresh-rate-text.js'
import { renderConditionsSection } from '../../src/artifacts/markdown-conditions.js'
import { MESSAGES } from '../../src/artifacts/report-messages.js'

const side = (label: string, trials: number, failures: number) => ({ label, trials, failures, rate: failures / trials, ci_low: 0, ci_high: 1 })

const conditions: ConditionsFile = {
  schema_version: 1,
  command: 'flakeproof vitest --flaky-rounds 4 --flaky-divergence',
  confidence: 0.95,
  rounds: [1, 2, 3, 4, 5, 6, 7, 8].map((round) => ({ round, condition: round % 2 ? 'base' : 'serial', seed: null })),
  load_procs: null,
  tests: {
    'a.test.ts > uses | the temp file': {
      comparisons: [{ kind: 'divergence', a: side('parallel (as configured)', 4, 4), b: side('serial', 4, 0), rounds: { a: { trials: 4, failures: 4 }, b: { trials: 4, failures: 0 } }, p_value: 2 / 70, significant: true, tag: 'parallel-only', trials_to_see: null, note: 'Fails \u001b[31mparallel\u001b[39m.' }],
      order: null,
      tags: ['parallel-only'],
    },
  },
}

describe('renderConditionsSection', () => {
  it('lists the rounds, one row per comparison with both counts, and each note without ANSI codes', () => {
    expect(renderConditionsSection(conditions, MESSAGES.en)).toEqual([
      '## Which condition the failures follow',
      '',
      '- Rounds: 4 base, 4 serial, alternating.',
      '',
      '| test | compared | a | b | p | tag |',
      '| --- | --- | --- | --- | --- | --- |',
      '| `a.test.ts > uses \\| the temp file` | divergence | parallel (as configured) 4 of 4 rounds | serial 0 of 4 rounds | 0.0286 | parallel-only |',
      '',
      '- `a.test.ts > uses \\| the temp file` (**parallel-only**): Fails parallel.',
      '',
    ])
  })

  it('says it all in Korean with --lang ko, the sentence made from the same counts', () => {
    expect(renderConditionsSection(conditions, MESSAGES.ko)).toEqual([
      '## 실패가 따르는 조건',
      '',
      '- 라운드: 기본 4번, 직렬 4번, 번갈아 실행.',
      '',
      '| 테스트 | 비교 | a | b | p | 태그 |',
      '| --- | --- | --- | --- | --- | --- |',
      '| `a.test.ts > uses \\| the temp file` | 병렬 대 직렬 | 병렬 (설정대로) 라운드 4번 중 4번 | 직렬 라운드 4번 중 0번 | 0.0286 | 병렬에서만 |',
      '',
      // p = 2/70 = 0.0286 (Fisher, 4/4 against 0/4: 1/C(8,4) = 1/70 per tail).
      '- `a.test.ts > uses \\| the temp file` (**병렬에서만**): 병렬 (설정대로)에서만 실패하고 직렬에서는 실패하지 않았습니다 (병렬 (설정대로) 라운드 4/4, 직렬 라운드 0/4, p = 0.0286): 프로세스나 머신 전체의 상태(임시 파일, 포트, 환경 변수, 전역 변수)를 통해 테스트끼리 얽혀 있습니다.',
      '',
    ])
  })

  it('says nothing without conditions.json', () => {
    expect(renderConditionsSection(undefined, MESSAGES.en)).toEqual([])
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
