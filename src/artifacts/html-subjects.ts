import type * as z from '../_zod.js'
import type { ReportBundle } from './bundle.js'
import { type IndependenceSchema, VerdictSchema } from './schemas.js'
import { byCodeUnits } from '../core/text-order.js'

/** report.html is made from the same bundle as flaky_report.md. */
export type HtmlBundle = ReportBundle

/** Rows of the rate table: beyond it, the page gives the count and points at rate.json. */
export const TABLE_ROWS = 300
/** Subjects drawn in detail (strip, durations, facts, failing repetitions), shared among the sections. */
export const DETAILED_SUBJECTS = 20
/** Stable tests listed by name (collapsed); beyond it the page gives the count. */
export const STABLE_LISTED = 1000

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
    .sort((a, b) => b.ci_low - a.ci_low || b.failures - a.failures || byCodeUnits(a.id, b.id))
}

/**
 * The sections of a test-mode page after the rate table, in this order: a verdict each, except that
 * an order-dependent test (conditions.json) is in its own section whatever its verdict, and a
 * non-idempotent one stays in its own. Verdicts this list does not know (a newer schema) follow in
 * the schema's order, each in a section of its own, so no test is ever left out or filed as flaky.
 */
export const SECTION_ORDER = ['flaky', 'non-idempotent', 'order-dependent', 'undetermined', 'broken', 'partial'] as const

export interface Section {
  /** A verdict, or `order-dependent`. */
  key: string
  /** Most certainly failing first. */
  subjects: Subject[]
}

/** The tags conditions.json gives a test (`order-dependent`, `parallel-only`, `load-only`). */
export function tagsOf(bundle: HtmlBundle, id: string): readonly string[] {
  return bundle.conditions?.tests[id]?.tags ?? []
}

/** Every subject that is not stable, in its section; sections without a subject are left out. */
export function sectionsOf(bundle: HtmlBundle): Section[] {
  const byKey = new Map<string, Subject[]>()
  for (const subject of concerningSubjects(bundle)) {
    const key = subject.verdict !== 'non-idempotent' && tagsOf(bundle, subject.id).includes('order-dependent') ? 'order-dependent' : subject.verdict
    byKey.set(key, [...(byKey.get(key) ?? []), subject])
  }
  const schemaOrder: readonly string[] = VerdictSchema.options
  const rank = (key: string): number => {
    const known = (SECTION_ORDER as readonly string[]).indexOf(key)
    if (known !== -1) return known
    // A verdict of the schema, then (read through the library, never from a file the schema checked) any other.
    const inSchema = schemaOrder.indexOf(key)
    return SECTION_ORDER.length + (inSchema === -1 ? schemaOrder.length : inSchema)
  }
  return [...byKey].sort(([a], [b]) => rank(a) - rank(b)).map(([key, subjects]) => ({ key, subjects }))
}

/**
 * Drawn in detail: command mode its one subject whatever its verdict; test mode at most
 * DETAILED_SUBJECTS tests, shared among the sections one at a time (each section's surest failure
 * first), so twenty flaky tests cannot crowd out the one broken test; in section order.
 */
export function detailedSubjects(bundle: HtmlBundle): Subject[] {
  if (bundle.rate.tests === undefined) return allSubjects(bundle)
  const sections = sectionsOf(bundle)
  const taken = sections.map(() => 0)
  let left = DETAILED_SUBJECTS
  for (let more = true; more && left > 0; ) {
    more = false
    sections.forEach((section, i) => {
      if (left > 0 && (taken[i] ?? 0) < section.subjects.length) {
        taken[i] = (taken[i] ?? 0) + 1
        left--
        more = true
      }
    })
  }
  return sections.flatMap((section, i) => section.subjects.slice(0, taken[i]))
}
