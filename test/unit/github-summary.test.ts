import { describe, expect, it } from 'vitest'
import { renderAnnotations } from '../../src/artifacts/github-annotations.js'
import { renderGithubSummary, SUMMARY_ROWS } from '../../src/artifacts/github-summary.js'
import type { PolicyFile } from '../../src/artifacts/schemas.js'
import { formatAnnotation } from '../../src/core/workflow-command.js'
import { proofFile, rateFile, testRate } from '../rate-file.js'

// Wilson 95% (z = 1.96) by hand: 5/20 → [11.2%, 46.9%]; 20/20 → [83.9%, 100%]; 0/20 → [0%, 16.1%].
// Green runs for 5/20 at 95%: ln(0.05)/ln(1 − 0.25) = 10.41 → 11 (docs/contracts.md §2).
const flaky = testRate('cart > fails | sometimes', 5, 0.112, 0.469, 'flaky')
const broken = testRate('always fails', 20, 0.839, 1, 'broken')
const stable = testRate('stable', 0, 0, 0.161, 'stable')
const rate = rateFile({ trials: 20, failures: 20, rate: 1, ci_low: 0.839, ci_high: 1 }, { tests: [flaky, broken, stable], command: 'vitest run -- --flaky-repeat 20' })
const policy: PolicyFile = {
  schema_version: 1,
  observed_rate: 1,
  trials: 20,
  failures: 20,
  basis: 'observed',
  confidence: 0.95,
  green_runs_required: 2,
  retry_budget: null,
  quarantine_after: null,
  notes: [],
  tests: { [flaky.id]: { observed_rate: 0.25, trials: 20, failures: 5, verdict: 'flaky', green_runs_required: 11, retry_budget: 2, quarantine_after: 3 } },
}
// 1 failure in 11: Wilson 95% [1.6%, 37.7%].
const proof = proofFile(
  { required: 11, trials: 11, failures: 1, ci_low: 0.016, ci_high: 0.377, passed: false, failure_trials: [4] },
  { [flaky.id]: { required: 11, trials: 11, failures: 1, passed: false, failure_trials: [4], status: 'ran' } },
)

describe('renderGithubSummary', () => {
  it('renders flaky and broken tables with counts, intervals and runs required, then quarantine and proof', () => {
    const quarantined = [{ id: 'tests/b.test.ts > slow | socket', since: '2026-11-01', reason: 'failed beyond its budget\non 3 runs', failures: 7, trials: 200 }]
    expect(renderGithubSummary({ rate, policy, proof }, quarantined)).toMatchInlineSnapshot(`
      "## flakeproof: \`vitest run -- --flaky-repeat 20\`

      **1 flaky, 1 broken** of 3 tests, 20 rounds

      ### Flaky (1)

      | Test | Failed | Rate | 95% interval | Verdict | Runs a fix must pass |
      | --- | --- | --- | --- | --- | --- |
      | \`tests/a.test.ts > cart > fails \\| sometimes\` | 5 of 20 | 25.0% | 11.2% – 46.9% | flaky | 11 |

      ### Broken (1)

      | Test | Failed | Rate | 95% interval |
      | --- | --- | --- | --- |
      | \`tests/a.test.ts > always fails\` | 20 of 20 | 100.0% | 83.9% – 100.0% |

      Broken tests failed every repetition: fix them as normal bugs. One that passes when its file runs as usual was broken by the repetitions, with state they leave.

      ### Quarantined (1)

      | Test | Since | Reason | Failed |
      | --- | --- | --- | --- |
      | \`tests/b.test.ts > slow \\| socket\` | 2026-11-01 | failed beyond its budget on 3 runs | 7 of 200 |

      ### Proof: **FAILED**

      | Test | Runs | Failed | Result |
      | --- | --- | --- | --- |
      | \`tests/a.test.ts > cart > fails \\| sometimes\` | 11 of 11 runs | 1 | FAILED |

      Required runs from \`.flakeproof/policy.json\`.

      "
    `)
  })

  it('renders a command measurement as one row, and a proof on its own', () => {
    const command = rateFile({ trials: 20, failures: 5, rate: 0.25, ci_low: 0.112, ci_high: 0.469 }, { command: 'node job.js' })
    expect(renderGithubSummary({ rate: command })).toContain('| flaky | 5 of 20 | 25.0% | 11.2% – 46.9% | – |')
    const alone = renderGithubSummary({ proof: { ...proof, tests: undefined, failures: 0, passed: true } })
    expect(alone).toContain('### Proof: **passed**\n\n11 of 11 required runs, 0 failed')
  })

  it(`lists at most SUMMARY_ROWS (${SUMMARY_ROWS}) tests per table, and says how many more`, () => {
    const many = Array.from({ length: SUMMARY_ROWS + 3 }, (_, i) => testRate(`flaky ${i}`, 5, 0.112, 0.469, 'flaky'))
    const text = renderGithubSummary({ rate: { ...rate, tests: many } })
    expect(text.split('\n').filter((line) => line.startsWith('| `tests/a.test.ts > flaky '))).toHaveLength(SUMMARY_ROWS)
    expect(text).toContain('### Flaky (103)')
    expect(text).toContain('… and 3 more: see flaky_report.md in the uploaded folder.')
  })

  it('says when the run is incomplete', () => {
    expect(renderGithubSummary({ rate: { ...rate, complete: false } })).toContain('**incomplete run**')
  })
})

describe('renderAnnotations', () => {
  const at = { file: 'tests/a.test.ts', line: 7 }
  const lines = [...renderAnnotations({ rate, policy }, () => at), ...renderAnnotations({ rate, policy, proof }, () => at)].map(formatAnnotation)

  it.each([
    ['a warning for the flaky test, at its line, with its runs required', '::warning file=tests/a.test.ts,line=7,title=flakeproof%3A flaky test cart > fails | sometimes::tests/a.test.ts > cart > fails | sometimes failed 5 of 20 times (rate 25.0%25, interval 11.2%25 – 46.9%25). A fix must pass 11 runs in a row.'],
    ['an error for the broken test', '::error file=tests/a.test.ts,line=7,title=flakeproof%3A broken test always fails::tests/a.test.ts > always fails failed 20 of 20 times (rate 100.0%25, interval 83.9%25 – 100.0%25). It failed every repetition: fix it as a normal bug, unless it passes when its file runs as usual (then the repetitions broke it).'],
    ['an error for the failed proof', '::error file=tests/a.test.ts,line=7,title=flakeproof%3A proof failed cart > fails | sometimes::tests/a.test.ts > cart > fails | sometimes: proof failed: 1 of 11 runs failed (11 required).'],
  ])('%s', (_, line) => {
    expect(lines).toContain(line)
  })

  it('leaves out the caveat that repetitions broke a test when every round ran each test once', () => {
    // --flaky-rounds 20 --flaky-repeat 1: each trial an ordinary run of its file (contracts: measured_under.repeat).
    const measuredUnder = { rounds: 20, repeat: 1, conditions: ['base' as const], load_procs: null, shuffle: false, seeds: [], gap_ms: null, workers: 1, concurrent_runs: 1, pool: null, isolate: null }
    const ordinary = { ...rate, measured_under: { ...rate.measured_under, ...measuredUnder } }
    const [broken] = renderAnnotations({ rate: { ...ordinary, tests: (rate.tests ?? []).filter((t) => t.verdict === 'broken') } }, () => at).map(formatAnnotation)
    expect(broken).toMatch(/It failed every repetition, and every run of its file as usual: fix it as a normal bug\.$/)
    expect(renderGithubSummary({ rate: ordinary })).toContain('Broken tests failed every repetition, and every run of their files as usual: fix them as normal bugs.')
  })

  it('says nothing about a stable test, nor about the measurement in a proof run', () => {
    expect(lines).toHaveLength(3)
    expect(lines.join('\n')).not.toContain('> stable')
  })

  it('points at the file alone when no location is found, and at nothing in command mode', () => {
    const [noLine] = renderAnnotations({ rate: { ...rate, tests: [flaky] } }, () => undefined).map(formatAnnotation)
    expect(noLine).toMatch(/^::warning title=/)
    const command = rateFile({ trials: 20, failures: 5, rate: 0.25, ci_low: 0.112, ci_high: 0.469 }, { command: 'node job.js' })
    expect(renderAnnotations({ rate: command }, () => at).map(formatAnnotation)).toEqual([
      '::warning title=flakeproof%3A flaky command::node job.js failed 5 of 20 times (rate 25.0%25, interval 11.2%25 – 46.9%25)',
    ])
  })
})
