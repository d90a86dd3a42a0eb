// flakeproof jest's in-process copies against what Jest users do today, one process per run, on
// a 10-file suite (bench/jest-project, 10 trivial tests per file), side by side in one run:
//   1. N = 20 copies in one `flakeproof jest --flaky-repeat 20` vs 20 separate `jest` processes
//      (Jest's bin called directly, not through npx): the ratio of wall times (goal: at least 5×)
//   2. per-copy overhead: (wall of the 20-copy run − wall of one plain `jest` run) / (19 × 100) extra executions
// Rounds alternate the sides so machine drift hits both alike; medians are printed.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const project = join(import.meta.dirname, 'jest-project')
const root = join(import.meta.dirname, '..')
const jest = join(root, 'node_modules/jest/bin/jest.js')
const bin = join(root, 'dist/src/cli/bin.js')
const out = mkdtempSync(join(tmpdir(), 'flakeproof-bench-jest-'))
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const N = 20
const EXECUTIONS = 10 * 10

function wallSeconds(args) {
  const started = process.hrtime.bigint()
  const result = spawnSync(process.execPath, args, { cwd: project, encoding: 'utf8' })
  if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}: ${result.stderr.slice(-2000)}`)
  return Number(process.hrtime.bigint() - started) / 1e9
}

const inProcess = () => wallSeconds([bin, 'jest', '--flaky-repeat', String(N), '--flaky-out', out, '--flaky-out-anywhere', '--silent'])
const plain = () => wallSeconds([jest, '--silent'])
function processes() {
  let total = 0
  for (let i = 0; i < N; i++) total += plain()
  return total
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const samples = { inProcess: [], processes: [], plain: [] }
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 ? ['processes', 'plain', 'inProcess'] : ['inProcess', 'plain', 'processes']
  for (const side of order) samples[side].push({ inProcess, processes, plain }[side]())
}
const [a, b, c] = [median(samples.inProcess), median(samples.processes), median(samples.plain)]
console.log(`Jest repetition bench, 10 files × 10 tests, N = ${N} (${ROUNDS} rounds, medians)\n`)
console.log(`1. ${N} in-process copies: ${a.toFixed(2)} s; ${N} separate jest processes: ${b.toFixed(2)} s; ratio ${(b / a).toFixed(1)}× (goal >= 5×)`)
console.log(`2. one plain jest run: ${c.toFixed(2)} s; per extra copy: ${(((a - c) / ((N - 1) * EXECUTIONS)) * 1000).toFixed(2)} ms`)
rmSync(out, { recursive: true, force: true })
