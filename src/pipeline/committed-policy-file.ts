import { existsSync } from 'node:fs'
import { relative, resolve } from 'node:path'
import { type CommittedPolicy, CommittedPolicySchema } from '../artifacts/committed-policy-schema.js'
import { readJsonFile } from '../artifacts/read.js'
import { writeJsonAtomic } from '../artifacts/write.js'
import type { ResolvedVitestOptions } from '../config/vitest-options.js'
import { flakeproofCommand } from '../core/hints.js'
import type { ProofFile } from '../artifacts/schemas.js'
import { type Release, releaseProven } from './enforcement.js'

export const POLICY_HINT = `Write it from a measurement: \`${flakeproofCommand('policy --from .flakeproof/rate.json --write flakeproof.policy.json')}\`.`

/** Where the committed policy is when `policy` / `--flaky-policy` does not say. */
export const DEFAULT_POLICY = 'flakeproof.policy.json'

/** The committed policy's absolute path, and how to show it. */
export function policyPathOf(root: string, options: Pick<ResolvedVitestOptions, 'policy'>): { path: string; shown: string } {
  const path = resolve(root, options.policy ?? DEFAULT_POLICY)
  const shown = relative(process.cwd(), path)
  return { path, shown: shown === '' || shown.startsWith('..') ? path : shown }
}

/** The committed policy, or undefined when there is none (a bad file is an error, never ignored). */
export function readCommittedPolicy(path: string, flag: string): CommittedPolicy | undefined {
  return existsSync(path) ? readJsonFile(path, CommittedPolicySchema, flag, `Fix the file, or write it again. ${POLICY_HINT}`) : undefined
}

/**
 * After a proof with `--flaky-update-policy`: each quarantined test its proof cleared leaves
 * quarantine (the file is written only then), whichever file the proof's counts came from; the
 * others stay, each with why (src/pipeline/enforcement.ts `releaseProven`).
 */
export function releaseProvenInPolicy(path: string, proof: ProofFile): Release[] {
  const policy = readCommittedPolicy(path, '--flaky-update-policy')
  if (!policy) return []
  const { updated, releases } = releaseProven(policy, proof)
  if (releases.some((r) => r.released)) writeJsonAtomic(path, CommittedPolicySchema, updated)
  return releases
}
