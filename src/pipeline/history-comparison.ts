import type { HistoryRun } from '../artifacts/history.js'
import type { HistoryComparisonSchema } from '../artifacts/test-schemas.js'
import { fisherExactTwoSided } from '../core/fisher.js'
import { complement, fractionFromNumber, lessThan } from '../core/fraction.js'
import type * as z from '../_zod.js'
import { baseOf, pastByTest, pastOf } from './attribution.js'

export type HistoryComparison = z.infer<typeof HistoryComparisonSchema>

/** A test of the local measurement: its counts and the signatures of its counted failures. */
export interface MeasuredTest {
  id: string
  trials: number
  failures: number
  signatures: ReadonlySet<string>
}

/**
 * A local measurement against CI's history (docs/attribution.md): for each test that failed here
 * and has past runs, whether the failures are plausibly the same bug. Null hypothesis: one failure
 * rate on both sides; Fisher's exact test (two-sided) on failed/passed here against failed/passed
 * runs there, rejected when p < 1 − confidence. Same bug: the rates are consistent and history has
 * seen every signature of the local failures.
 */
export function compareWithHistory(
  tests: readonly MeasuredTest[],
  runs: readonly HistoryRun[],
  settings: { confidence: number; base?: string | undefined; env: Readonly<Record<string, string | undefined>>; currentBranch: string | null },
): Map<string, HistoryComparison> {
  const compared = new Map<string, HistoryComparison>()
  if (runs.length === 0) return compared
  const base = baseOf(settings, runs)
  const byTest = pastByTest(runs)
  const alpha = complement(fractionFromNumber(settings.confidence))
  for (const test of tests) {
    if (test.failures === 0) continue
    const past = pastOf(byTest.get(test.id) ?? [], base.branch, settings.currentBranch, undefined)
    if (past.basis !== 'history') continue
    const fisher = fisherExactTwoSided({ failuresA: test.failures, passesA: test.trials - test.failures, failuresB: past.failures, passesB: past.runs - past.failures })
    const rateConsistent = !lessThan(fisher.exact, alpha)
    const local = [...test.signatures].sort()
    const shared = local.filter((s) => (past.signatures.get(s) ?? 0) > 0)
    const fresh = local.filter((s) => !shared.includes(s))
    compared.set(test.id, {
      branch: past.branch,
      runs: past.runs,
      failures: past.failures,
      p_value: fisher.pValue,
      rate_consistent: rateConsistent,
      shared_signatures: shared,
      new_signatures: fresh,
      same_bug: rateConsistent && fresh.length === 0 && shared.length > 0,
    })
  }
  return compared
}

/** The terminal's line for one comparison. */
export function comparisonLine(id: string, c: HistoryComparison): string {
  const where = c.branch === null ? 'in history' : `on ${c.branch}`
  const rate = `${c.rate_consistent ? 'rate consistent with' : 'rate differs from'} ${c.failures}/${c.runs} ${where} (Fisher p = ${c.p_value.toPrecision(3)})`
  const signatures = c.new_signatures.length > 0 ? `${c.new_signatures.length} signature(s) history never saw: ${c.new_signatures.map((s) => `\`${s}\``).join(', ')}` : `same signature${c.shared_signatures.length > 1 ? 's' : ''} as history`
  return `  ${id}: ${c.same_bug ? 'plausibly the same bug as CI' : 'not plausibly the same bug as CI'}: ${rate}; ${signatures}`
}
