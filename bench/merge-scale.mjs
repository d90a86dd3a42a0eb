// Reading at scale, each against the floor of its input: a separate Node process that reads the same
// files and JSON.parses every line (bench/_read-floor.mjs), paired (A B, B A, …), wall time.
//   1. merge of FOLDERS real Vitest output folders (TESTS tests × REPEAT repetitions each, 500 000
//      executions in all): target <= 4×; with its peak RSS beside the facts it read (memory O(tests))
//   2. history over RUNS history files of HTESTS tests (the everyday reporter's lines): target <= 4×
//   3. ingest of REPORTS JUnit files written by a real `vitest run --reporter=junit`, against reading
//      them and passing them through sax (its parser, and the floor of any XML reader): target <= 4×
// Each folder is a real `flakeproof vitest --flaky-repeat` run of one file whose test i fails every
// (i % 7 + 2)-th call (a counter, shifted per folder so no two folders are the same run).
//   node bench/merge-scale.mjs [--smoke]   BENCH_FOLDERS (10) BENCH_TESTS (50) BENCH_REPEAT (1000)
//   BENCH_RUNS (200) BENCH_HTESTS (500) BENCH_REPORTS (200) BENCH_PAIRS (3)
import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { BIN, binOf, paired, peakMb, printRatio, ROOT, scratch, size, spread, VITEST, vitestProject, wallMs } from './_harness.mjs'

const FOLDERS = size('BENCH_FOLDERS', 10, 2)
const TESTS = size('BENCH_TESTS', 50, 3)
const REPEAT = size('BENCH_REPEAT', 1000, 5)
const RUNS = size('BENCH_RUNS', 200, 3)
const HTESTS = size('BENCH_HTESTS', 500, 3)
const REPORTS = size('BENCH_REPORTS', 200, 3)
const PAIRS = size('BENCH_PAIRS', 3, 1)
const root = scratch('merge')
const FLOOR = join(ROOT, 'bench/_read-floor.mjs')
const MB = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`

// --- 1. merge ---
const flaky = Array.from(
  { length: TESTS },
  (_, i) => `test('t${i}', () => { calls[${i}] = (calls[${i}] ?? 0) + 1; if ((calls[${i}] + shift) % ${(i % 7) + 2} === 0) throw new Error('STALE entry on call ' + calls[${i}]) })`,
).join('\n')
const project = vitestProject(join(root, 'project'), { files: 1, source: `const calls = {}\nconst shift = Number(process.env.BENCH_SHIFT)\n${flaky}` })
const shards = []
for (let f = 1; f <= FOLDERS; f++) {
  const out = join(root, 'shards', `shard-${String(f).padStart(2, '0')}`)
  wallMs({ args: [binOf(project), 'vitest', '--flaky-repeat', String(REPEAT), '--flaky-out', out, '--flaky-out-anywhere'], cwd: project, env: { ...process.env, BENCH_SHIFT: String(f) } })
  shards.push(out)
}
const facts = shards.map((dir) => join(dir, 'facts.jsonl'))
const factBytes = facts.reduce((sum, file) => sum + statSync(file).size, 0)
const mergeArgs = [BIN, 'merge', join(root, 'shards', 'shard-*'), '--out', join(root, 'merged')]
const merge = paired(() => wallMs({ args: mergeArgs }), () => wallMs({ args: [FLOOR, ...facts] }), { pairs: PAIRS })
const mergePeak = peakMb({ args: mergeArgs })
console.log(`merge: ${FOLDERS} Vitest folders × ${TESTS} tests × ${REPEAT} repetitions = ${FOLDERS * TESTS * REPEAT} executions, facts ${MB(factBytes)}; peak RSS ${mergePeak.toFixed(0)} MB (${((mergePeak * 1e6) / factBytes).toFixed(2)}× the facts read)`)
printRatio('merge vs read-and-parse floor', merge.ratio, { at_most: 4 }, spread(merge, ['merge', 'floor']))

// --- 2. history ---
const historyDir = join(root, 'history')
mkdirSync(historyDir)
const historyFiles = []
for (let r = 0; r < RUNS; r++) {
  const at = new Date(Date.UTC(2026, 0, 1) + r * 3_600_000).toISOString()
  const lines = Array.from({ length: HTESTS }, (_, i) => {
    const failed = (r + i) % ((i % 7) + 2) === 0
    const outcome = failed ? (r % 3 === 0 ? 'flaky' : 'failed') : 'passed'
    return JSON.stringify({ test_id: `a.test.ts > t${i}`, project: '', file: 'a.test.ts', name: `t${i}`, outcome, retries: outcome === 'flaky' ? 1 : 0, duration_ms: 1 + (i % 5), commit: `c${Math.floor(r / 10)}`, branch: 'main', os: 'linux', at })
  })
  const file = join(historyDir, `${at.replace(/[:.]/g, '-')}-${r}.jsonl`)
  writeFileSync(file, `${lines.join('\n')}\n`)
  historyFiles.push(file)
}
const historyArgs = [BIN, 'history', '--glob', join(historyDir, '*.jsonl'), '--out', join(root, 'from-history')]
const history = paired(() => wallMs({ args: historyArgs }), () => wallMs({ args: [FLOOR, ...historyFiles] }), { pairs: PAIRS })
console.log(`history: ${RUNS} runs × ${HTESTS} tests = ${RUNS * HTESTS} records`)
printRatio('history vs read-and-parse floor', history.ratio, { at_most: 4 }, spread(history, ['history', 'floor']))

// --- 3. ingest ---
const junitDir = join(root, 'junit')
mkdirSync(junitDir)
// Vitest itself writes the report; its flaky tests fail, so it exits 1.
const first = join(junitDir, 'run-1.xml')
const written = spawnSync(process.execPath, [VITEST, 'run', '--reporter=junit', `--outputFile=${first}`], { cwd: project, env: { ...process.env, BENCH_SHIFT: '0' }, encoding: 'utf8' })
if (readdirSync(junitDir).length !== 1) throw new Error(`vitest wrote no JUnit report (exit ${written.status}): ${written.stderr.slice(-2000)}`)
const reports = [first]
for (let r = 2; r <= REPORTS; r++) {
  reports.push(join(junitDir, `run-${r}.xml`))
  copyFileSync(first, reports.at(-1))
}
const ingestArgs = [BIN, 'ingest', '--junit', join(junitDir, '*.xml'), '--out-dir', join(root, 'ingested')]
const ingest = paired(() => wallMs({ args: ingestArgs }), () => wallMs({ args: [FLOOR, '--xml', ...reports] }), { pairs: PAIRS })
console.log(`ingest: ${REPORTS} JUnit reports of ${TESTS} test cases (${MB(statSync(first).size * REPORTS)})`)
printRatio('ingest vs read-and-parse floor', ingest.ratio, { at_most: 4 }, spread(ingest, ['ingest', 'floor']))
