import pc from 'picocolors'
import type { AttributionFile } from '../artifacts/attribution-schema.js'
import type { ReportBundle } from '../artifacts/bundle.js'
import type { RunnerInfo } from '../config/runners.js'
import { FlakeproofError } from '../errors.js'
import { attributeEverydayRun, attributionHeadline, attributionLines, type EverydayRun, type FailedTest } from '../pipeline/attribution.js'
import { comparisonLine } from '../pipeline/history-comparison.js'
import type { EverydayResult } from './everyday-history.js'

const COLOUR = { 'known-flake': pc.yellow, 'new-signature': pc.magenta, 'new-failure': pc.red, 'no-history': pc.dim } as const

/** Where a red everyday run is judged (its history and the committed policy), and for which runner. */
export type RedRun = Omit<EverydayRun, 'env' | 'now'> & { runner: RunnerInfo }

/**
 * A red everyday run of any runner (docs/attribution.md), before it joins its history:
 * attribution.json from the output folder's history and the committed policy, and one line per
 * failed test for the runner's log. Nothing for a runner whose adapter does not attribute, or when
 * nothing failed or nothing is known to judge by. A history line or policy that cannot be read
 * costs the attribution (one warning), never the run or its history.
 */
export function attributeRedRun(failed: readonly FailedTest[], run: RedRun): { file: AttributionFile | undefined; lines: string[] } {
  if (!run.runner.can.attribution) return { file: undefined, lines: [] }
  let file: AttributionFile | undefined
  try {
    file = attributeEverydayRun(failed, { ...run, env: process.env, now: new Date() })
  } catch (error) {
    if (!(error instanceof FlakeproofError)) throw error
    return { file: undefined, lines: [pc.yellow(`[flakeproof] no attribution: ${error.message}`)] }
  }
  if (!file) return { file, lines: [] }
  const lines = [pc.bold(pc.cyan(' flakeproof ')) + pc.dim(attributionHeadline(file))]
  for (const { call, line } of attributionLines(file)) lines.push(COLOUR[call](line))
  return { file, lines }
}

/** The failed tests of an everyday run as the runner reported it (a quarantined failure its runner turned into a pass included). */
export function failedOf(results: readonly EverydayResult[]): FailedTest[] {
  return results.filter((r) => r.failed).map((r) => ({ id: r.id, signature: r.signature ?? null }))
}

/**
 * A measurement's signature lines: the failures `--flaky-signature` left out of each test's counts,
 * and how each test's failures compare with the history of everyday runs (docs/attribution.md).
 */
export function signatureLines(bundle: Pick<ReportBundle, 'rate'> | undefined): string[] {
  const lines: string[] = []
  const filter = bundle?.rate.signature_filter
  if (filter !== undefined) lines.push(pc.dim(`  counted only failures whose signature matches ${JSON.stringify(filter)}`))
  for (const test of bundle?.rate.tests ?? []) {
    const others = test.other_failures
    if (others) lines.push(pc.dim(`  ${test.id}: other failures: ${others.count}, signatures ${others.signatures.map((s) => `\`${s.signature}\` ${s.count}×`).join(', ')}`))
    if (test.compared_with_history) lines.push((test.compared_with_history.same_bug ? pc.yellow : pc.magenta)(comparisonLine(test.id, test.compared_with_history)))
  }
  return lines
}
