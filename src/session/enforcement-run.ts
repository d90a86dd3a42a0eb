import { logLine } from '../core/workflow-command.js'
import { type CommittedPolicy, CommittedPolicySchema } from '../artifacts/committed-policy-schema.js'
import { writeJsonAtomic } from '../artifacts/write.js'
import type { RunnerInfo } from '../config/runners.js'
import type { ResolvedVitestOptions } from '../config/vitest-options.js'
import { FlakeproofError } from '../errors.js'
import { DEFAULT_POLICY, POLICY_HINT, policyPathOf, readCommittedPolicy } from '../pipeline/committed-policy-file.js'
import { type EnforcedTest, judgeEnforcedRun, listQuarantined, retryOf } from '../pipeline/enforcement.js'
import { publishEnforcementToGithub } from '../pipeline/github.js'
import { renderEnforcement } from './_enforce-text.js'
import { hintsOf } from './hints.js'

/** The committed policy an enforced run applies, and what the runner must do with it. */
export interface Enforcement {
  policy: CommittedPolicy
  /** Absolute, and as shown (relative to the working folder). */
  path: string
  shown: string
  /** Each listed test's retry budget; every other test gets none. */
  retries: Record<string, number>
  /** Ids of quarantined tests: their failures do not fail the run. */
  quarantined: string[]
}

/**
 * `--flaky-enforce` (docs/contracts.md §9): the committed policy, read before any test. A missing
 * policy is an error: enforcing nothing while CI believes it enforces is not allowed.
 */
export function loadEnforcement(root: string, options: Pick<ResolvedVitestOptions, 'policy'>): Enforcement {
  const { path, shown } = policyPathOf(root, options)
  const policy = readCommittedPolicy(path, '--flaky-enforce')
  if (!policy) throw new FlakeproofError(`--flaky-enforce: no committed policy at ${shown} (policy / --flaky-policy ${options.policy ?? DEFAULT_POLICY}). ${POLICY_HINT}`, 'E_INPUT')
  return {
    policy,
    path,
    shown,
    retries: Object.fromEntries(Object.entries(policy.tests).map(([id, entry]) => [id, retryOf(entry)])),
    quarantined: Object.entries(policy.tests).filter(([, e]) => e.quarantine !== null).map(([id]) => id),
  }
}

/**
 * The end of an enforced run, for every runner: the listed tests that used their retries or failed
 * beyond them, quarantined tests with their evidence, proposals; with `updatePolicy` the policy is
 * written back. Returns the terminal lines, then the GitHub annotations (under GitHub Actions). It
 * never changes the exit code: the runner decides it, its failures of quarantined tests already passes.
 */
export function finishEnforcedRun(
  enforcement: Enforcement,
  seen: readonly EnforcedTest[],
  run: { root: string; updatePolicy: boolean; runner: RunnerInfo; command: string },
): string[] {
  const { root, updatePolicy } = run
  const { policy, path, shown } = enforcement
  const today = new Date().toISOString().slice(0, 10)
  const { results, proposed, updated } = judgeEnforcedRun(policy, seen, today)
  const quarantined = listQuarantined(policy, results)
  const changed = JSON.stringify(updated) !== JSON.stringify(policy)
  if (updatePolicy && changed) writeJsonAtomic(path, CommittedPolicySchema, updated)
  return [
    '',
    // Names, reasons and evidence escaped under GitHub Actions; annotations are escaped where they are made.
    ...renderEnforcement(shown, results, quarantined, proposed, updatePolicy, hintsOf(run.runner, run.command).again('--flaky-proof --flaky-update-policy')).map((line) => logLine(line, process.env)),
    ...publishEnforcementToGithub({ policyPath: shown, root, results, quarantined, proposed, written: updatePolicy }, process.env),
  ]
}
