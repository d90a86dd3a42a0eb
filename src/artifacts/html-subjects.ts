import type { ReportBundle } from './bundle.js'
import type { IndependenceSchema, VerdictSchema } from './schemas.js'
import type { z } from 'zod'

/** report.html is made from the same bundle as flaky_report.md. */
export type HtmlBundle = ReportBundle

/** Rows of the rate table: beyond it, the page gives the count and points at rate.json. */
export const TABLE_ROWS = 300
/** Subjects drawn in detail (strip, durations, facts): the flaky ones most certainly failing first. */
export const DETAILED_SUBJECTS = 20

/** A measured subject: the command (command mode) or one test. */
export interface Subject {
  id: string
  trials: number
  failures: number
  rate: number
  ci_low: number
  ci_high: number
  verdict: z.infer<typeof VerdictSchema>
  independence?: z.infer<typeof IndependenceSchema> | null | undefined
}

/** Every subject of the run: the command alone, or each test. */
export function allSubjects({ rate }: HtmlBundle): Subject[] {
  if (rate.tests === undefined) return [{ ...rate, id: rate.command }]
  return rate.tests
}

/**
 * The subjects the table lists: all but the stable ones, most certainly failing first (the lower end
 * of the interval), so a reader fixes the surest problem before a lucky streak.
 */
export function concerningSubjects(bundle: HtmlBundle): Subject[] {
  return allSubjects(bundle)
    .filter((s) => s.verdict !== 'stable')
    .sort((a, b) => b.ci_low - a.ci_low || b.failures - a.failures || a.id.localeCompare(b.id))
}

/** Drawn in detail: command mode its one subject whatever its verdict; test mode the flaky, non-idempotent and undetermined tests. */
export function detailedSubjects(bundle: HtmlBundle): Subject[] {
  if (bundle.rate.tests === undefined) return allSubjects(bundle)
  return concerningSubjects(bundle).filter(isDetailed).slice(0, DETAILED_SUBJECTS)
}

/** Tests whose failures mix with passes: the ones the page draws. */
export function isDetailed(s: Pick<Subject, 'verdict'>): boolean {
  return s.verdict === 'flaky' || s.verdict === 'non-idempotent' || s.verdict === 'undetermined'
}
