import { FlakeproofError } from '../../errors.js'
import type { PipelineContext } from '../../pipeline/context.js'
import type { RunsResult } from '../../pipeline/report-runs.js'

/**
 * What `repeat` and `ingest` print: each run error as one line on stderr (file and line first), then
 * the per-test numbers as JSON on stdout.
 * @throws FlakeproofError `E_INPUT` when not one report could be read, or none held a test case: there is nothing to measure.
 */
export function printRuns(result: RunsResult, outDir: string, context: PipelineContext, print: (value: unknown) => void): void {
  for (const { file, error } of result.runErrors) context.log(file === null || error.startsWith(file) ? error : `${file}: ${error}`)
  if (result.runs === 0) {
    throw new FlakeproofError(`no report could be read (${result.runErrors.length} error${result.runErrors.length === 1 ? '' : 's'}, above); nothing was written`, 'E_INPUT')
  }
  if (result.outcomes.length === 0 && result.runErrors.some((e) => e.file === null)) {
    throw new FlakeproofError(`no test of the ${result.runs} report${result.runs === 1 ? '' : 's'} read could be told apart from another (above); nothing was written`, 'E_INPUT')
  }
  if (result.outcomes.length === 0) {
    throw new FlakeproofError(`the ${result.runs} report${result.runs === 1 ? '' : 's'} read hold no test case; nothing was written. Does the runner find any test?`, 'E_INPUT')
  }
  print({
    out_dir: outDir,
    runs: result.runs,
    complete: result.complete,
    tests: result.outcomes.map(({ tally, verdict, ci }) => ({
      id: tally.id,
      trials: tally.fast.trials,
      failures: tally.fast.failures,
      rate: tally.fast.trials === 0 ? 0 : tally.fast.failures / tally.fast.trials,
      ci_low: ci.low,
      ci_high: ci.high,
      verdict,
    })),
  })
}
