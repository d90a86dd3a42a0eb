import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { readJsonFile } from '../artifacts/read.js'
import { PolicyFileSchema, RunsNeededFileSchema } from '../artifacts/schemas.js'
import { FlakeproofError } from '../errors.js'

/** Each test that was flaky in the last measurement, and the green runs its fix must pass. */
/** `hint` says how to measure first, in the runner's own syntax (src/core/hints.ts). */
export function readProofRuns(outDir: string, hint: string): { runs: Record<string, number>; from: string } {
  const policyPath = join(outDir, 'policy.json')
  const planPath = join(outDir, 'runs_needed.json')
  const [path, runs] = existsSync(policyPath)
    ? [policyPath, pick(readJsonFile(policyPath, PolicyFileSchema, '--flaky-proof', hint).tests, (t) => t.green_runs_required)]
    : existsSync(planPath)
      ? [planPath, pick(readJsonFile(planPath, RunsNeededFileSchema, '--flaky-proof', hint).tests, (t) => t.runs)]
      : []
  if (!path || !runs) throw new FlakeproofError(`--flaky-proof: no policy.json or runs_needed.json in ${outDir}. ${hint}`, 'E_INPUT')
  if (Object.keys(runs).length === 0) {
    throw new FlakeproofError(`--flaky-proof: nothing to prove, no test was flaky in ${path}; measure again, or leave --flaky-proof out`, 'E_INPUT')
  }
  return { runs, from: path }
}

function pick<T extends { verdict: string }>(tests: Record<string, T> | undefined, runs: (t: T) => number): Record<string, number> {
  return Object.fromEntries(Object.entries(tests ?? {}).filter(([, t]) => t.verdict === 'flaky').map(([id, t]) => [id, runs(t)]))
}
