// `npm run bench`: every bench of bench/benches.mjs in turn (--smoke passed on), its output as it
// comes, then every ratio again in one table beside its target. A bench that fails is named and
// the run goes on; the exit code says whether all of them ran.
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
if (failed.length > 0) {
  console.log(`\nfailed: ${failed.join(', ')}`)
  process.exitCode = 1
}
