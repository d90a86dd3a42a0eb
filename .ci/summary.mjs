// The end of .ci/run: the slowest test files (where the suite's time goes), what the suite left in the
// checkout, then the closing line `N passed, N failed`, which stays last and plain. Reads Vitest's JSON
// report, the durations of test/durations-reporter.ts and the `git status --porcelain` lines that
// appeared during the run, and the exit status of the suite's command.
//   node .ci/summary.mjs <results.json> <durations.jsonl> [slowest = 15] [left-in-checkout.txt] [exit status]
import { readFileSync } from 'node:fs'

const [resultsFile, durationsFile, slowest = '15', leftFile, exitStatus = '0'] = process.argv.slice(2)

function read(file, parse) {
  try {
    return parse(readFileSync(file, 'utf8'))
  } catch {
    return undefined
  }
}

// Two kinds of line per file: `ms` from the reporter (main process), `cpu_ms` from test/setup.ts (its
// worker, and every process the file started and waited for).
const lines = read(durationsFile, (text) =>
  text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line)),
)
const byFile = new Map()
for (const line of lines ?? []) byFile.set(line.file, { ...byFile.get(line.file), ...line })
const files = [...byFile.values()].filter((f) => f.ms !== undefined)
if (files.length > 0) {
  const seconds = (ms) => (ms / 1000).toFixed(1).padStart(6)
  const total = files.reduce((sum, f) => sum + f.ms, 0) / 1000
  const timed = files.filter((f) => f.cpu_ms !== undefined)
  const cpu = timed.length === files.length ? `, ${(timed.reduce((sum, f) => sum + f.cpu_ms, 0) / 1000).toFixed(0)} s of CPU` : ''
  console.log(`slowest of ${files.length} test files (${total.toFixed(0)} s in all, run side by side${cpu}):`)
  for (const f of [...files].sort((a, b) => b.ms - a.ms).slice(0, Number(slowest))) {
    console.log(`  ${seconds(f.ms)} s  ${f.cpu_ms === undefined ? '' : `${seconds(f.cpu_ms)} s CPU  `}${f.file}`)
  }
}

const results = read(resultsFile, JSON.parse)
// No report at all: the suite never ran (npm ci or the build failed), which is one failure, not a
// green `0 failed`.
if (results === undefined) console.log('no test results: the suite did not run (see npm ci and the build above)')
const passed = results?.numPassedTests ?? 0
// A file that fails before any of its tests (an import error, a hook) has no failed test of its own:
// it counts as one failure, so a red suite never closes on `0 failed`.
const fileFailures = (results?.testResults ?? []).filter((file) => file.status === 'failed' && !file.assertionResults?.some((a) => a.status === 'failed')).length
// A run of the suite leaves the checkout as it found it: a file it wrote there (a fixture's output, a
// snapshot) is one failure more, named here.
const left = (leftFile === undefined ? '' : (read(leftFile, (text) => text) ?? '')).split('\n').filter((line) => line !== '')
if (left.length > 0) {
  console.log(`the suite left ${left.length} ${left.length === 1 ? 'path' : 'paths'} in the checkout (git status --porcelain --ignored), which a run must leave as it found it:`)
  for (const line of left.slice(0, 10)) console.log(`  ${line}`)
  if (left.length > 10) console.log(`  … and ${left.length - 10} more`)
}
const counted = (results === undefined ? 1 : results.numFailedTests + fileFailures) + (left.length > 0 ? 1 : 0)
// The suite's command failed with no failed test or file in the report (an error outside every test:
// a config Vitest refuses, an unhandled error): one failure, so the line never says `0 failed` of a red run.
if (counted === 0 && exitStatus !== '0') console.log(`npm ci && npm test exited ${exitStatus} with no failed test in its report: see the errors above`)
const failed = counted === 0 && exitStatus !== '0' ? 1 : counted
console.log(`${passed} passed, ${failed} failed`)
