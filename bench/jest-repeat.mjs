// flakeproof jest's in-process copies against what Jest users do today, one process per run, on
// a 10-file suite (bench/jest-project, 10 trivial tests per file), side by side in one run:
//   1. N = 20 copies in one `flakeproof jest --flaky-repeat 20` vs 20 separate `jest` processes
//      (Jest's bin called directly, not through npx): the ratio of wall times, target >= 5×
//   2. per-copy overhead: (wall of the N-copy run − wall of one plain `jest` run) / ((N − 1) × 10 × files) extra executions
// Rounds alternate the sides so machine drift hits both alike; medians are printed.
//   node bench/jest-repeat.mjs [--smoke]   BENCH_ROUNDS (3) BENCH_N (20) BENCH_JEST_FILES (10; smoke 1)
import { join } from 'node:path'
import { JEST, jestProject, median, printRatio, scratch, size, wallMs } from './_harness.mjs'

const out = scratch('jest')
// A copy of bench/jest-project with flakeproof installed, as a user's project has it (Jest
// transforms setup files outside node_modules in every worker).
const project = join(out, 'project')
const FILES = size('BENCH_JEST_FILES', 10, 1)
const BIN = jestProject(project, FILES)
const ROUNDS = size('BENCH_ROUNDS', 3, 1)
const N = size('BENCH_N', 20, 2)
const EXECUTIONS = FILES * 10

const inProcess = () => wallMs({ args: [BIN, 'jest', '--flaky-repeat', String(N), '--flaky-out', join(out, 'fp'), '--flaky-out-anywhere', '--silent'], cwd: project })
const plain = () => wallMs({ args: [JEST, '--silent'], cwd: project })
function processes() {
  let total = 0
  for (let i = 0; i < N; i++) total += plain()
  return total
}

const samples = { inProcess: [], processes: [], plain: [] }
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 ? ['processes', 'plain', 'inProcess'] : ['inProcess', 'plain', 'processes']
  for (const side of order) samples[side].push({ inProcess, processes, plain }[side]())
}
const [a, b, c] = [median(samples.inProcess), median(samples.processes), median(samples.plain)]
console.log(`Jest repetition bench, ${FILES} files × 10 tests, N = ${N} (${ROUNDS} rounds, medians)`)
printRatio('jest in-process vs N processes', b / a, { at_least: 5 }, `${N} in-process copies ${(a / 1000).toFixed(2)} s, ${N} jest processes ${(b / 1000).toFixed(2)} s`)
console.log(`one plain jest run: ${(c / 1000).toFixed(2)} s; per extra copy: ${((a - c) / ((N - 1) * EXECUTIONS)).toFixed(2)} ms`)
