import { fileURLToPath } from 'node:url'
import type { Vitest } from 'vitest/node'
import type { CommittedPolicy } from '../../src/artifacts/committed-policy-schema.js'
import { type ResolvedVitestOptions, resolveOutDir } from '../../src/config/vitest-options.js'
import { FlakeproofError } from '../../src/errors.js'
import { proofRunsOf, retryOf } from '../../src/pipeline/enforcement.js'
import type { EnforceOptions } from './_enforce-protocol.js'
import { DEFAULT_POLICY, POLICY_HINT, policyPathOf, readCommittedPolicy } from '../../src/pipeline/committed-policy-file.js'
import EnforceReporter from './enforce-reporter.js'

export const ENFORCE_RUNNER = fileURLToPath(new URL('./enforce-runner.js', import.meta.url))

/**
 * `--flaky-enforce`: the enforcing runner on every project with each listed test's retry budget and
 * the quarantined ids, and the enforcement reporter after the user's reporters. A missing policy is
 * an error before any test: enforcing nothing while CI believes it enforces is not allowed.
 */
export function installEnforcement(vitest: Vitest, resolved: ResolvedVitestOptions): EnforceReporter {
  const { path, shown } = policyPathOf(vitest.config.root, resolved)
  const policy = readCommittedPolicy(path, '--flaky-enforce')
  if (!policy) throw new FlakeproofError(`--flaky-enforce: no committed policy at ${shown} (policy / --flaky-policy ${resolved.policy ?? DEFAULT_POLICY}). ${POLICY_HINT}`, 'E_INPUT')
  const options: EnforceOptions = {
    retries: Object.fromEntries(Object.entries(policy.tests).map(([id, entry]) => [id, retryOf(entry)])),
    quarantined: Object.entries(policy.tests).filter(([, e]) => e.quarantine !== null).map(([id]) => id),
  }
  for (const project of vitest.projects) {
    project.config.runner = ENFORCE_RUNNER
    project.provide('flakeproofEnforce', options)
  }
  const historyOutDir = resolved.history ? resolveOutDir(vitest.config.root, resolved) : undefined
  return new EnforceReporter({ policy, policyPath: path, shownPath: shown, updatePolicy: resolved.updatePolicy, historyOutDir })
}

/**
 * `--flaky-proof` with a committed policy: its quarantined tests, each its green runs. Nothing
 * quarantined passes with a line saying so, unless `--flaky-proof-required`.
 */
export function proofFromCommitted(policy: CommittedPolicy, path: string, shown: string, required: boolean): { runs: Record<string, number>; from: string; nothingToProve?: string } {
  const runs = proofRunsOf(policy)
  if (Object.keys(runs).length > 0) return { runs, from: path }
  const line = `nothing to prove: no test is quarantined in ${shown}`
  if (required) throw new FlakeproofError(`--flaky-proof-required: ${line}; leave out --flaky-proof-required to let such a run pass`, 'E_INPUT')
  return { runs, from: path, nothingToProve: ` flakeproof ${line}; every test was skipped and the run passes` }
}
