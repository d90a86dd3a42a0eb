// `npm run bench`: every bench of bench/benches.mjs in turn (--smoke passed on), its output as it
// comes, then every ratio again beside its target and whether it is met, and how many are. A bench
// that fails is named and the run goes on; the exit code says whether all of them ran (a target not
// met is a finding, printed, not a failure of the run: docs/benchmarks.md says where the time goes).
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { BENCHES, RATIO_LINE } from './benches.mjs'

const extra = process.argv.slice(2)
const summary = []
const failed = []
for (const { script } of BENCHES) {
  console.log(`\n== bench/${script} ${extra.join(' ')}`.trimEnd())
  const result = spawnSync(process.execPath, [join(import.meta.dirname, script), ...extra], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 26 })
  process.stdout.write(result.stdout)
  summary.push(...result.stdout.split('\n').filter((line) => RATIO_LINE.test(line)))
  if (result.status !== 0) failed.push(script)
}
console.log('\n== every ratio beside its target')
for (const line of summary) console.log(line.replace(/^ratio /, '').replace(/\) .*$/, ')'))
const verdicts = summary.map((line) => RATIO_LINE.exec(line)?.[3] ?? '')
const met = verdicts.filter((v) => v.endsWith(': met')).length
const notMet = summary.filter((_, i) => verdicts[i].endsWith(': NOT MET')).map((line) => RATIO_LINE.exec(line)?.[1])
const smoke = verdicts.filter((v) => v.endsWith(': smoke')).length
if (smoke > 0) console.log(`\nsmoke mode: ${smoke} targets not judged (sizes that small measure nothing)`)
else console.log(`\n${met} of ${met + notMet.length} targets met${notMet.length > 0 ? `; not met: ${notMet.join(', ')}` : ''}`)
if (failed.length > 0) {
  console.log(`\nfailed: ${failed.join(', ')}`)
  process.exitCode = 1
}
