import pc from 'picocolors'
import type { EnforcedResult, QuarantinedTest } from '../pipeline/enforcement.js'

/**
 * The terminal section of an enforced run: listed tests that needed their retries or failed beyond
 * them, then the quarantined tests with their evidence, then the tests proposed for quarantine.
 */
export function renderEnforcement(
  policyPath: string,
  results: readonly EnforcedResult[],
  quarantined: readonly QuarantinedTest[],
  proposed: readonly string[],
  written: boolean,
  /** The proof that releases a quarantined test, in the runner's syntax. */
  proofCommand: string,
): string[] {
  const lines = [pc.bold(pc.cyan(' flakeproof ')) + pc.dim(`enforcing ${policyPath}: ${results.length} listed test(s) ran, ${quarantined.length} of them quarantined`)]
  for (const r of results) {
    if (r.outcome === 'passed-within-budget') lines.push(`  ${pc.yellow('↻')} ${r.id}  ${pc.dim(`passed after ${r.retries} of its ${r.retryBudget} retries`)}`)
    if (r.outcome === 'failed-beyond-budget') {
      lines.push(`  ${pc.red('✗')} ${r.id}  ${pc.red(`failed beyond its retry budget of ${r.retryBudget}`)} ${pc.dim(`(${r.failedRuns} consecutive run(s))`)}`)
    }
  }
  if (quarantined.length > 0) {
    lines.push(pc.bold('  quarantined (ran and reported; cannot fail the run):'))
    for (const q of quarantined) {
      const did = q.outcome === 'failed' ? pc.red('failed') : pc.green('passed')
      lines.push(`  ${pc.dim('◌')} ${q.id}  ${did}${q.errors[0] === undefined ? '' : `: ${q.errors[0]}`}`)
      lines.push(pc.dim(`      since ${q.quarantine.since}: ${q.quarantine.reason}`))
      for (const e of q.quarantine.evidence) lines.push(pc.dim(`      evidence: ${e}`))
      lines.push(pc.dim(`      leaves quarantine after a proof of ${q.greenRunsRequired} green runs: ${proofCommand}`))
    }
  }
  for (const id of proposed) {
    lines.push(`  ${pc.yellow('!')} ${id}  ${written ? pc.yellow(`quarantined in ${policyPath}`) : pc.yellow('proposed for quarantine (write it with --flaky-update-policy)')}`)
  }
  return lines
}
