// `npm run bench`: every bench of bench/benches.mjs in turn (--smoke passed on), its output as it
// comes, then every ratio again beside its target and whether it is met, and how many are. A bench
// that fails is named and the run goes on; the exit code says whether all of them ran (a target not
// met is a finding, printed, not a failure of the run: docs/benchmarks.md says where the time goes).
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { BENCHES, closingLines, RATIO_LINE } from './benches.mjs'

// Arguments naming scripts (`startup.mjs`) run only those; the others (`--smoke`) go to every bench.
const args = process.argv.slice(2)
const chosen = args.filter((arg) => arg.endsWith('.mjs'))
const extra = args.filter((arg) => !arg.endsWith('.mjs'))
const unknown = chosen.filter((name) => !BENCHES.some((b) => b.script === name))
if (unknown.length > 0) {
  console.error(`bench/all.mjs: no bench ${unknown.join(', ')} in bench/benches.mjs`)
  process.exit(2)
}
const summary = []
const failed = []
for (const { script } of BENCHES.filter((b) => chosen.length === 0 || chosen.includes(b.script))) {
  console.log(`\n== bench/${script} ${extra.join(' ')}`.trimEnd())
  const result = spawnSync(process.execPath, [join(import.meta.dirname, script), ...extra], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 26 })
  process.stdout.write(result.stdout)
  summary.push(...result.stdout.split('\n').filter((line) => RATIO_LINE.test(line)))
  if (result.status !== 0) failed.push(script)
}
console.log('\n== every ratio beside its target')
for (const line of closingLines(summary)) console.log(line)
if (failed.length > 0) {
  console.log(`\nfailed: ${failed.join(', ')}`)
  process.exitCode = 1
}
