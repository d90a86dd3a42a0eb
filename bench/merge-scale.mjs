// Peak memory of `flakeproof merge` against the size of what it merges (docs/contracts.md §10: memory
// O(tests) plus one test's executions). Writes `folders` shard folders of `tests` tests × `repeat`
// repetitions (deterministic: test i fails every (i % 7 + 2)-th repetition), then merges them in a
// child process and reports its peak RSS beside the bytes of facts read. Run after `npm run build`:
//   node bench/merge-scale.mjs [folders=10] [tests=50] [repeat=1000]
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildTestMeasurement, byConcern, outcomeOf } from '../dist/src/pipeline/test-bundle.js'
import { toFactLines } from '../dist/src/pipeline/test-facts.js'
import { tallyTest } from '../dist/src/pipeline/test-tally.js'

const [folders = 10, tests = 50, repeat = 1000] = process.argv.slice(2).map(Number)
const confidence = { value: 0.95, exact: { num: 19n, den: 20n } }
const root = mkdtempSync(join(tmpdir(), 'flakeproof-merge-bench-'))
let factBytes = 0
for (let f = 1; f <= folders; f++) {
  const dir = join(root, `shard-${f}`)
  mkdirSync(dir)
  const reported = Array.from({ length: tests }, (_, i) => ({
    project: '',
    file: 'a.test.ts',
    name: `t${i}`,
    evidence: {
      id: `a.test.ts > t${i}`, path: [`t${i}`], order: i + 1, previousTest: null, worker: '1', seed: null,
      repetitions: Array.from({ length: repeat }, (_, r) => {
        const ok = (r + 1) % ((i % 7) + 2) !== 0
        return { ok, elapsedMs: 1, mode: 'fast', gapMs: 0, stdout: `call ${r}\n`, ...(ok ? {} : { error: `STALE entry on call ${r}` }) }
      }),
    },
  }))
  writeFileSync(join(dir, 'facts.jsonl'), `${reported.flatMap(toFactLines).map((l) => JSON.stringify(l)).join('\n')}\n`)
  factBytes += statSync(join(dir, 'facts.jsonl')).size
  const tallies = reported.map((t) => tallyTest(t, confidence.exact))
  const outcomes = tallies.map((t) => outcomeOf(t, repeat, confidence)).sort(byConcern)
  const { rate } = buildTestMeasurement({ command: 'bench', repeat, observe: false, confidence, startedAt: new Date(0), durationMs: 1, complete: true, runErrors: [], outcomes, rounds: repeat })
  // A run id per shard: alike in every count, they are still ten runs (merge counts a copied folder once).
  writeFileSync(join(dir, 'rate.json'), JSON.stringify({ ...rate, run_id: `bench-shard-${f}` }))
}
const started = performance.now()
// GNU time prints the child's peak RSS (KiB) as the last line of stderr.
const merged = spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, 'dist/src/cli/bin.js', 'merge', join(root, 'shard-*'), '--out', join(root, 'merged')], { encoding: 'utf8' })
if (merged.status !== 0) throw new Error(`merge failed: ${merged.stderr}`)
const seconds = (performance.now() - started) / 1000
const peakKb = Number(merged.stderr.trim().split('\n').at(-1))
console.log(`${folders} folders × ${tests} tests × ${repeat} repetitions = ${folders * tests * repeat} executions, facts ${(factBytes / 1e6).toFixed(1)} MB`)
console.log(`merge: ${seconds.toFixed(1)} s, peak RSS ${(peakKb / 1024).toFixed(0)} MB (${(peakKb * 1024 / factBytes).toFixed(2)} × the facts read)`)
if (process.env.KEEP) console.log(root)
else rmSync(root, { recursive: true, force: true })
