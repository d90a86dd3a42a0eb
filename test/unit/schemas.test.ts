import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { renderReport } from '../../src/artifacts/markdown.js'
import { ARTIFACT_SCHEMAS } from '../../src/artifacts/artifact-schemas.js'
import type { RateFile } from '../../src/artifacts/schemas.js'
import { fractionFromCounts } from '../../src/core/fraction.js'
import { analyzeFacts } from '../../src/pipeline/facts.js'
import { compareObservations, toObservation } from '../../src/pipeline/observe.js'
import { buildRunsNeeded, choosePlanningBasis } from '../../src/pipeline/plan.js'
import { decidePolicy } from '../../src/pipeline/policy.js'
import { buildSummary } from '../../src/pipeline/report.js'

const confidence = { value: 0.95, exact: { num: 19n, den: 20n } }

const rate: RateFile = {
  schema_version: 1, command: 'node job.js', trials: 20, failures: 4, rate: 0.2, ci_low: 0.080656, ci_high: 0.416022,
  gap_ms: 0, confidence: 0.95, z: 1.96, verdict: 'flaky', timed_out: 0, timeout_ms: null, jobs: 1, complete: true,
  requested_trials: 20, started_at: '2026-11-30T00:00:00.000Z', duration_ms: 1600,
}

const facts = Array.from({ length: 20 }, (_, i) => {
  const failed = (i + 1) % 5 === 0
  return {
    trial: i + 1, exit_code: failed ? 3 : 0, outcome: failed ? ('failed' as const) : ('passed' as const), elapsed_ms: 80,
    stderr: failed ? `cache: STALE entry on call ${i + 1}\n` : '', stdout: failed ? '' : `{"ok":true,"call":${i + 1}}\n`,
    signal: null, timed_out: false, started_at: '2026-11-30T00:00:00.000Z', offset_ms: i * 80, gap_ms: 0, worker: 1,
    concurrent: 0, stdout_bytes: failed ? 0 : 24, stderr_bytes: failed ? 30 : 0,
  }
})

function bundle() {
  const basis = choosePlanningBasis(rate)
  const slow = { trials: 20, failures: 0, gap_ms: 2000 }
  return {
    rate,
    runsNeeded: buildRunsNeeded(basis, rate, confidence),
    onlyWhenFail: analyzeFacts(facts),
    observer: compareObservations(rate.command, toObservation(rate, 0.95), toObservation(slow, 0.95), confidence),
    policy: decidePolicy(basis, fractionFromCounts(4, 20), rate, confidence),
    proof: {
      schema_version: 1 as const, command: 'node job.js --fixed', required: 14, required_from: 'runs_needed.json', trials: 14,
      failures: 0, rate: 0, ci_low: 0, ci_high: 0.215311, passed: true, failure_trials: [], complete: true,
    },
  }
}

describe('artifact schemas', () => {
  it('round-trips every artifact built by the pipeline through JSON', () => {
    const b = bundle()
    const artifacts = {
      rate: b.rate, runs_needed: b.runsNeeded, facts: facts[4], only_when_fail: b.onlyWhenFail, observer: b.observer,
      policy: b.policy, proof: b.proof, summary: buildSummary(b),
    }
    for (const [name, value] of Object.entries(artifacts)) {
      const schema = ARTIFACT_SCHEMAS[name as keyof typeof ARTIFACT_SCHEMAS].schema
      expect(schema.parse(JSON.parse(JSON.stringify(value))), name).toEqual(value)
    }
  })

  it('carries schema_version 1 on every JSON file but not on fact lines', () => {
    for (const [name, { schema }] of Object.entries(ARTIFACT_SCHEMAS)) {
      const json = z.toJSONSchema(schema) as { properties: Record<string, unknown> }
      expect('schema_version' in json.properties, name).toBe(!name.endsWith('facts'))
    }
  })

  it('rejects a rate outside [0, 1] and a missing trial count', () => {
    expect(ARTIFACT_SCHEMAS.rate.schema.safeParse({ ...rate, rate: 1.2 }).success).toBe(false)
    const { trials: _, ...withoutTrials } = rate
    expect(ARTIFACT_SCHEMAS.rate.schema.safeParse(withoutTrials).success).toBe(false)
  })
})

describe('renderReport', () => {
  it('renders the four English sections with their numbers', () => {
    expect(renderReport(bundle(), 'en')).toMatchInlineSnapshot(`
      "# Flaky report: \`node job.js\`

      Flaky. Failed 4 of 20 trials.

      ## How often

      - Failed **4 of 20** trials: rate 20.0%, 95% Wilson interval [8.1%, 41.6%].
      - Rest before each trial: 0 ms; trials at once: 1; timed out: 0.

      ## True only when it fails

      - Exit codes on failure: 3; on success: 0.
      - Token \`STALE\`: in the stderr of all 4 failures and in the output of no success.
      - Failing trials (4 of 20): 5, 10, 15, 20

      | Predicate (Liblit et al. 2005) | true in failures | true in successes | Increase | Importance | p (corrected) |
      | --- | --- | --- | --- | --- | --- |
      | \`exit_code = 3 ≡ stdout_bytes <= 0 ≡ stderr_bytes > 0 ≡ output contains STALE (+3 more)\` | 4 | 0 | 0.800 | 0.889 | 0.0014 |

      ## What observation changed

      | Run | gap ms | failures/trials | rate | interval |
      | --- | --- | --- | --- | --- |
      | fast | 0 | 4 of 20 | 20.0% | 8.1% – 41.6% |
      | slow (gapped) | 2000 | 0 of 20 | 0.0% | 0.0% – 16.1% |

      - Fisher's exact test, two-sided: p = 0.106; not changed (p >= 0.05).
      - The slow run saw no failure, but 20 slow trials are too few to tell it from the fast rate (fast 20.0% (4 of 20) at 0 ms gaps, slow 0.0% (0 of 20) at 2000 ms gaps, p = 0.106); run more slow trials before drawing a conclusion.

      ## What it takes to say it is fixed

      - Consecutive passes needed at rate 20.0% (confidence → runs): 0.9 → 11, 0.95 → 14, 0.99 → 21
      - Policy: 14 green runs at confidence 0.95; retry budget 2; quarantine after 1 consecutive failure(s) with retries.
      - Proof: \`node job.js --fixed\` ran 14 of 14 required times with 0 failure(s): **PASSED**.
      - A rate up to 21.5% is still consistent with the proof runs (Wilson upper end).
      "
    `)
  })

  it('renders the Korean titles of docs/contracts.md §3 in order', () => {
    const headings = renderReport(bundle(), 'ko').match(/^## .*/gm)
    expect(headings).toEqual(['## 얼마나 자주인가', '## 실패할 때만 참인 것', '## 관측이 바꾼 것', '## 고쳤다고 말하려면'])
  })

  it('says which steps have not run instead of inventing numbers', () => {
    const text = renderReport({ rate }, 'en')
    expect(text.match(/^## .*/gm)).toHaveLength(4)
    expect(text.match(/Not measured yet/g)).toHaveLength(4)
  })
})
