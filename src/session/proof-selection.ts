import { existsSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import type { CommittedPolicy } from '../artifacts/committed-policy-schema.js'
import type { MeasuredUnder } from '../artifacts/conditions-schema.js'
import { readJsonFile } from '../artifacts/read.js'
import { PolicyFileSchema, RateFileSchema } from '../artifacts/schemas.js'
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
  /** Each test's measurement conditions, which the proof's stress must match (output folder: one for all; committed policy: each entry's). */
  measured: Record<string, MeasuredUnder | undefined>
  /** A proof weaker than its measurement fails: `--flaky-proof-strict`, or the committed policy's `proof_strict`. */
  strict: boolean
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
  const hasMeasurement = existsSync(join(outDir, 'policy.json')) || existsSync(join(outDir, 'runs_needed.json'))
  const fromCommitted = runner.can.committedPolicy && !(options.policy === undefined && hasMeasurement)
  const policy = runner.can.committedPolicy ? readCommittedPolicy(path, '--flaky-proof') : undefined
  const strict = options.proofStrict || policy?.proof_strict === true
  if (fromCommitted && policy) {
    const measured = Object.fromEntries(Object.entries(policy.tests).map(([id, entry]) => [id, entry.measured_under]))
    return { ...proofFromCommitted(policy, path, shown, options.proofRequired), unreproduced: [], measured, strict }
  }
  const proving = readProofRuns(outDir, hint)
  const under = readMeasuredUnder(proving.from, hint)
  const measured = Object.fromEntries(Object.keys(proving.runs).map((id) => [id, under]))
  return { ...proving, unreproduced: unreproducedConditions(under, options), measured, strict }
}

// --- internal ---

/**
 * `--flaky-proof` with a committed policy: its quarantined tests, each its green runs. Nothing
 * quarantined passes with a line saying so, unless `--flaky-proof-required`.
 */
function proofFromCommitted(policy: CommittedPolicy, path: string, shown: string, required: boolean): Pick<ProofSelection, 'runs' | 'from' | 'nothingToProve'> {
  const runs = proofRunsOf(policy)
  if (Object.keys(runs).length > 0) return { runs, from: path }
  const line = `nothing to prove: no test is quarantined in ${shown}`
  if (required) throw new FlakeproofError(`--flaky-proof-required: ${line}; leave out --flaky-proof-required to let such a run pass`, 'E_INPUT')
  return { runs, from: path, nothingToProve: ` flakeproof ${line}; every test was skipped and the run passes` }
}

/**
 * The conditions the policy's measurement ran under: policy.json's, else (a proof from
 * runs_needed.json) the stress its rate.json recorded; undefined for files older than both.
 */
function readMeasuredUnder(proofFrom: string, hint: string): MeasuredUnder | undefined {
  if (basename(proofFrom) === 'policy.json') return readJsonFile(proofFrom, PolicyFileSchema, '--flaky-proof', hint).measured_under
  const rate = join(dirname(proofFrom), 'rate.json')
  return existsSync(rate) ? readJsonFile(rate, RateFileSchema, '--flaky-proof', hint).measured_under : undefined
}
