// What wrapping a single run costs: `flakeproof vitest --flaky-repeat 1` against `vitest run` on 20
// files × 10 trivial tests, and `flakeproof jest --flaky-repeat 1` against `jest` on bench/jest-project
// (10 files × 10 tests), each paired (A B, B A, …), wall time of the whole process: the median ratio
// and its spread; target <= 1.05 for both. flakeproof is installed in each project, as users have it.
//   node bench/wrapped-run.mjs [--smoke]   BENCH_PAIRS (10) BENCH_FILES (20) BENCH_JEST_FILES (10); smoke: 1 pair, 1 file each
import { join } from 'node:path'
import { binOf, JEST, jestProject, paired, printRatio, scratch, size, spread, VITEST, vitestProject, wallMs } from './_harness.mjs'

const PAIRS = size('BENCH_PAIRS', 10, 1)
const dir = scratch('wrapped')
const project = vitestProject(join(dir, 'vitest'), { files: size('BENCH_FILES', 20, 1), tests: 10 })
const out = join(dir, 'out')

const vitest = paired(
  () => wallMs({ args: [binOf(project), 'vitest', '--flaky-repeat', '1', '--flaky-out', out, '--flaky-out-anywhere'], cwd: project }),
  () => wallMs({ args: [VITEST, 'run'], cwd: project }),
  { pairs: PAIRS },
)
printRatio('wrapped vitest run vs vitest run', vitest.ratio, { at_most: 1.05 }, spread(vitest, ['flakeproof vitest --flaky-repeat 1', 'vitest run']))

const jestDir = join(dir, 'jest')
const jestBin = jestProject(jestDir)
const jest = paired(
  () => wallMs({ args: [jestBin, 'jest', '--flaky-repeat', '1', '--flaky-out', out, '--flaky-out-anywhere', '--silent'], cwd: jestDir }),
  () => wallMs({ args: [JEST, '--silent'], cwd: jestDir }),
  { pairs: PAIRS },
)
printRatio('wrapped jest run vs jest', jest.ratio, { at_most: 1.05 }, spread(jest, ['flakeproof jest --flaky-repeat 1', 'jest']))
