import pc from 'picocolors'
import type { AttributionFile } from '../../src/artifacts/attribution-schema.js'
import type { CommittedPolicy } from '../../src/artifacts/committed-policy-schema.js'
import type { ResolvedVitestOptions } from '../../src/config/vitest-options.js'
import { FlakeproofError } from '../../src/errors.js'
import { attributeEverydayRun, attributionHeadline, attributionLines, type FailedTest } from '../../src/pipeline/attribution.js'
import type { ReportBundle } from '../../src/artifacts/bundle.js'
import { comparisonLine } from '../../src/pipeline/history-comparison.js'

const COLOUR = { 'known-flake': pc.yellow, 'new-signature': pc.magenta, 'new-failure': pc.red, 'no-history': pc.dim } as const

/**
 * A red everyday Vitest run (docs/attribution.md): attribution.json from the output folder's history
 * and the committed policy, and one line per failed test after Vitest's summary. Undefined when
 * nothing failed or nothing is known to judge by.
 */
export function attributeVitestRun(
  failed: readonly FailedTest[],
  where: { outDir: string; root: string; policyPath: string; policy?: CommittedPolicy; options: Pick<ResolvedVitestOptions, 'confidence' | 'base'> },
  log: (line: string) => void,
): AttributionFile | undefined {
  const { outDir, root, policyPath, policy, options } = where
  let file: AttributionFile | undefined
  try {
    file = attributeEverydayRun(failed, { outDir, root, policyPath, policy, confidence: options.confidence, base: options.base, env: process.env, now: new Date() })
  } catch (error) {
    // A history line or policy that cannot be read costs the attribution, never the run or its history.
    if (!(error instanceof FlakeproofError)) throw error
    log(pc.yellow(`[flakeproof] no attribution: ${error.message}`))
    return undefined
  }
  if (!file) return undefined
  log(pc.bold(pc.cyan(' flakeproof ')) + pc.dim(attributionHeadline(file)))
  for (const { call, line } of attributionLines(file)) log(COLOUR[call](line))
  return file
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
