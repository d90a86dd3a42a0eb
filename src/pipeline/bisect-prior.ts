import { existsSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { readHistoryRuns } from '../artifacts/history.js'
import { readJsonFile } from '../artifacts/read.js'
import { RateFileSchema } from '../artifacts/schemas.js'
import type { Tally } from '../core/change-point.js'
import { FlakeproofError } from '../errors.js'
import type { CommitRange } from './bisect-commits.js'

export interface PriorExecutions {
  from: string
  executions: number
  failures: number
  /** By position in the range. */
  tallies: Tally[]
}

/**
 * Executions seen before the bisection, as a prior on the rates (docs/bisect.md, "A measured
 * rate"): added to the counts of the commit they were seen at, which is exactly a Beta prior
 * updated by them. A rate.json is taken as measured at --bad (where the user saw it fail); its
 * top-level counts are used (rounds, in test mode). A history folder (`.flakeproof/history`, or a
 * folder holding one) gives each recorded run at a commit of the range as one execution, failed if
 * any test in it failed; runs at other commits are left out.
 * @throws FlakeproofError `E_INPUT` naming --prior-from
 */
export function priorExecutions(path: string, range: CommitRange): PriorExecutions {
  const tallies: Tally[] = range.commits.map(() => ({ trials: 0, failures: 0 }))
  if (!existsSync(path)) throw new FlakeproofError(`--prior-from ${path}: no such file or folder; give a rate.json or a .flakeproof/history folder`, 'E_INPUT')
  if (statSync(path).isDirectory()) {
    const folder = existsSync(join(path, 'history')) && statSync(join(path, 'history')).isDirectory() ? join(path, 'history') : path
    const position = new Map(range.commits.map((c, k) => [c.sha, k]))
    for (const run of readHistoryRuns([`${folder.split('\\').join('/')}/*.jsonl`]).runs) {
      const k = run.records[0]?.commit ? position.get(run.records[0].commit) : undefined
      if (k === undefined) continue
      const tally = tallies[k] as Tally
      tally.trials++
      if (run.records.some((r) => r.outcome !== 'passed')) tally.failures++
    }
  } else {
    const rate = readJsonFile(path, RateFileSchema, '--prior-from', 'Give a rate.json measured at --bad, or a .flakeproof/history folder')
    const bad = tallies.at(-1) as Tally
    bad.trials = rate.trials
    bad.failures = rate.failures
  }
  const executions = tallies.reduce((sum, t) => sum + t.trials, 0)
  const failures = tallies.reduce((sum, t) => sum + t.failures, 0)
  if (executions === 0) throw new FlakeproofError(`--prior-from ${path}: holds no execution at a commit between --good and --bad; give a history recorded at those commits, or a rate.json`, 'E_INPUT')
  return { from: path, executions, failures, tallies }
}
