import { REPEAT } from '../../config/options.js'
import { repeatCommand } from '../../pipeline/repeat.js'
import { defineCommand } from '../spec.js'
import { printRuns } from './_runs-result.js'

export const repeat = defineCommand({
  name: 'repeat',
  summary: 'run any test runner N times, each writing a JUnit report (or a `cargo test` log); write per-test rates with Wilson intervals',
  usage: '--runs <n> (--junit "<path>" | --libtest "<path>") [--gap-ms <ms>] [--jobs <n>] [--timeout-ms <ms>] [--confidence <c>] [--out-dir <dir>] [--lang <en|ko>] -- <command>',
  rest: 'cmd',
  writes: 'rate.json (with tests), facts.jsonl (one line per attempt of each test per run), runs_needed.json, only_when_fail.json, policy.json, summary.json, flaky_report.md, report.html in --out-dir; with a fixed report path, each run\'s report in --out-dir/run-reports/',
  example: 'npx flakeproof repeat --runs 20 --junit "out/run-{run}.xml" -- python3 -m pytest --junitxml=out/run-{run}.xml',
  ...REPEAT,
  async run(o, { print, context }) {
    const result = await repeatCommand(
      o['out-dir'],
      {
        // Required by REPEAT's schema; optional only so that `--` may give it instead.
        command: o.cmd as string,
        runs: o.runs,
        format: o.junit !== undefined ? 'junit' : 'libtest',
        report: (o.junit ?? o.libtest) as string,
        gapMs: o['gap-ms'],
        jobs: o.jobs,
        timeoutMs: o['timeout-ms'] ?? null,
        confidence: o.confidence,
        lang: o.lang,
      },
      context,
    )
    // Stopped before any run finished: nothing to read, and nothing wrong with the input.
    if (result.stopped && result.runs === 0 && result.runErrors.length === 0) {
      context.log('repeat: stopped before any run finished; nothing was written')
      return 130
    }
    printRuns(result, o['out-dir'], context, print)
    return result.stopped ? 130 : 0
  },
})
