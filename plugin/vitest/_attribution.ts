import pc from 'picocolors'
import type { AttributionFile } from '../../src/artifacts/attribution-schema.js'
import type { ResolvedVitestOptions } from '../../src/config/vitest-options.js'
import { attributeEverydayRun, attributionHeadline, attributionLines, type FailedTest } from '../../src/pipeline/attribution.js'
import { policyPathOf } from './_committed-policy.js'

const COLOUR = { 'known-flake': pc.yellow, 'new-signature': pc.magenta, 'new-failure': pc.red, 'no-history': pc.dim } as const

/**
 * A red everyday Vitest run (docs/attribution.md): attribution.json from the output folder's history
 * and the committed policy, and one line per failed test after Vitest's summary. Undefined when
 * nothing failed or nothing is known to judge by.
 */
export function attributeVitestRun(
  failed: readonly FailedTest[],
  where: { outDir: string; root: string; options: Pick<ResolvedVitestOptions, 'policy' | 'confidence' | 'base'> },
  log: (line: string) => void,
): AttributionFile | undefined {
  const { outDir, root, options } = where
  const policyPath = policyPathOf(root, options).path
  const file = attributeEverydayRun(failed, { outDir, root, policyPath, confidence: options.confidence, base: options.base, env: process.env, now: new Date() })
  if (!file) return undefined
  log(pc.bold(pc.cyan(' flakeproof ')) + pc.dim(attributionHeadline(file)))
  for (const { call, line } of attributionLines(file)) log(COLOUR[call](line))
  return file
}
