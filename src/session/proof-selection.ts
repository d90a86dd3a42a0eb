import { existsSync } from 'node:fs'
import { basename, join } from 'node:path'
import type { CommittedPolicy } from '../artifacts/committed-policy-schema.js'
import type { MeasuredUnder } from '../artifacts/conditions-schema.js'
import { readJsonFile } from '../artifacts/read.js'
import { PolicyFileSchema } from '../artifacts/schemas.js'
import type { RunnerInfo } from '../config/runners.js'
import type { ResolvedVitestOptions } from '../config/vitest-options.js'
import { FlakeproofError } from '../errors.js'
import { policyPathOf, readCommittedPolicy } from '../pipeline/committed-policy-file.js'
import { proofRunsOf } from '../pipeline/enforcement.js'
import { unreproducedConditions } from '../pipeline/proof-conditions.js'
import { readProofRuns } from '../pipeline/proof-runs.js'
import { hintsOf } from './hints.js'

/** What a proof run proves: each test's required repetitions, where they came from, and what it does not replay. */
export interface ProofSelection {
  /** Test id → repetitions required. */
  runs: Record<string, number>
  /** The file they came from: policy.json, runs_needed.json or the committed policy. */
  from: string
  /** The measurement's conditions this proof does not replay (it then fails). */
  unreproduced: string[]
  /** A proof from the committed policy with nothing quarantined: said at the end, nothing recorded. */
  nothingToProve?: string
}

/**
 * `--flaky-proof`: a policy named with --flaky-policy is proved; else a measurement in the output
 * folder (what `--flaky-repeat` then `--flaky-proof` means), else the committed policy, as in a
 * fresh CI checkout (docs/contracts.md §9) — the committed policy only where the runner's adapter
 * has that capability. Its errors say how to measure first, in the runner's own syntax.
 */
export function selectProof(run: { runner: RunnerInfo; command: string; version?: string | undefined }, root: string, outDir: string, options: ResolvedVitestOptions): ProofSelection {
  const { runner } = run
  const hint = `Measure first: \`${hintsOf(runner, run.command, run.version).again('--flaky-repeat 200')}\`.`
  const { path, shown } = policyPathOf(root, options)
  const measured = existsSync(join(outDir, 'policy.json')) || existsSync(join(outDir, 'runs_needed.json'))
  const fromCommitted = runner.can.committedPolicy && !(options.policy === undefined && measured)
  const committed = fromCommitted ? readCommittedPolicy(path, '--flaky-proof') : undefined
  const proving = committed ? proofFromCommitted(committed, path, shown, options.proofRequired) : readProofRuns(outDir, hint)
  return { ...proving, unreproduced: unreproducedConditions(readMeasuredUnder(proving.from, hint), options) }
}

// --- internal ---

/**
 * `--flaky-proof` with a committed policy: its quarantined tests, each its green runs. Nothing
 * quarantined passes with a line saying so, unless `--flaky-proof-required`.
 */
function proofFromCommitted(policy: CommittedPolicy, path: string, shown: string, required: boolean): Omit<ProofSelection, 'unreproduced'> {
  const runs = proofRunsOf(policy)
  if (Object.keys(runs).length > 0) return { runs, from: path }
  const line = `nothing to prove: no test is quarantined in ${shown}`
  if (required) throw new FlakeproofError(`--flaky-proof-required: ${line}; leave out --flaky-proof-required to let such a run pass`, 'E_INPUT')
  return { runs, from: path, nothingToProve: ` flakeproof ${line}; every test was skipped and the run passes` }
}

/** The conditions the policy's measurement ran under; undefined for runs_needed.json or an older policy.json. */
function readMeasuredUnder(proofFrom: string, hint: string): MeasuredUnder | undefined {
  if (basename(proofFrom) !== 'policy.json') return undefined
  return readJsonFile(proofFrom, PolicyFileSchema, '--flaky-proof', hint).measured_under
}
