// --flaky-rounds K in one Vitest against K separate `vitest run` processes (what a user would
// otherwise do), on 20 files × 10 trivial tests, flakeproof installed in the project as users have
// it, paired (A B, B A, …), wall time:
//   --no-isolate: the speed-up B/A, target >= 2×
//   isolation on (the default): B/A shown, no target (each round's isolated workers cost what a process does)
//   node bench/vitest-rounds.mjs [--smoke]   BENCH_K (10) BENCH_PAIRS (3)
import { join } from 'node:path'
import { binOf, paired, printRatio, scratch, size, spread, VITEST, vitestProject, wallMs } from './_harness.mjs'

const K = size('BENCH_K', 10, 2)
const PAIRS = size('BENCH_PAIRS', 3, 1)
const project = vitestProject(join(scratch('rounds'), 'project'), { files: size('BENCH_FILES', 20, 1), tests: 10 })

function processes(extra) {
  let total = 0
  for (let i = 0; i < K; i++) total += wallMs({ args: [VITEST, 'run', ...extra], cwd: project })
  return total
}
const rounds = (extra) => wallMs({ args: [binOf(project), 'vitest', '--flaky-rounds', String(K), '--flaky-out', '.fp', ...extra], cwd: project })

console.log(`rounds: K = ${K}, ${PAIRS} pairs; A = 1 process of K rounds, B = K processes`)
for (const [name, extra, target] of [
  ['rounds --no-isolate vs K processes', ['--no-isolate'], { at_least: 2 }],
  ['rounds (isolated) vs K processes', [], undefined],
]) {
  // The figure is B/A: how many times faster one process of K rounds is.
  const r = paired(() => processes(extra), () => rounds(extra), { pairs: PAIRS })
  printRatio(name, r.ratio, target, spread(r, [`${K} × vitest run`, `--flaky-rounds ${K}`], 's'))
}
