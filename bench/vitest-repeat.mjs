// --flaky-repeat against Vitest's native `repeats` on the same trivial tests, side by side in one run.
// Per-repetition cost is the difference between a run with N repetitions and one with a single
// repetition (so start-up cancels out), divided by the repetitions; the figures are ratios.
//   1. cost per repetition at 2 000 repetitions (10 tests × 2 000), flakeproof / native
//   2. growth: 1 test × 20 000 and × 100 000 repetitions (native 4.1 is quadratic: BENCH_FULL=1 runs
//      its 100 000 too, which takes minutes)
//   3. peak memory (max RSS of any Vitest process) for 500 tests × 200 repetitions vs native
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const project = join(import.meta.dirname, 'vitest-project')
const vitest = join(import.meta.dirname, '..', 'node_modules/vitest/vitest.mjs')
const out = mkdtempSync(join(tmpdir(), 'flakeproof-bench-'))
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)

/** Runs Vitest once; returns wall seconds and peak RSS in MB (GNU time). */
function run({ tests, repeat, native }) {
  const env = { ...process.env, BENCH_TESTS: String(tests), BENCH_NATIVE_REPEATS: native ? String(repeat - 1) : '0' }
  const args = ['-f', '%e %M', process.execPath, vitest, 'run', ...(native ? [] : ['--', '--flaky-repeat', String(repeat), '--flaky-out', out, '--flaky-out-anywhere'])]
  const result = spawnSync('/usr/bin/time', args, { cwd: project, env, encoding: 'utf8' })
  if (result.status !== 0) throw new Error(`vitest exited ${result.status}: ${result.stderr.slice(-2000)}`)
  const [seconds, kb] = result.stderr.trim().split('\n').pop().split(' ').map(Number)
  return { seconds, mb: kb / 1024 }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

/** Median over rounds, alternating flakeproof and native so machine drift hits both alike. */
function perRepetitionMicros(tests, repeat, withNative = true) {
  const sides = withNative ? [false, true] : [false]
  const samples = new Map(sides.map((native) => [native, []]))
  for (let round = 0; round < ROUNDS; round++) {
    for (const native of round % 2 ? [...sides].reverse() : sides) {
      const base = run({ tests, repeat: 1, native }).seconds
      const full = run({ tests, repeat, native }).seconds
      samples.get(native).push(((full - base) / (tests * (repeat - 1))) * 1e6)
    }
  }
  return { flakeproof: median(samples.get(false)), native: withNative ? median(samples.get(true)) : undefined }
}

const fmt = (us) => (us === undefined ? '–' : `${us.toFixed(1)} µs`)
console.log(`Vitest repetition bench (${ROUNDS} rounds, medians)\n`)

const at2000 = perRepetitionMicros(10, 2000)
console.log(`1. per repetition at 2 000 (10 tests): flakeproof ${fmt(at2000.flakeproof)}, native ${fmt(at2000.native)}, ratio ${(at2000.flakeproof / at2000.native).toFixed(2)} (target <= 1.15)`)

const growth20k = perRepetitionMicros(1, 20_000)
const growth100k = perRepetitionMicros(1, 100_000, process.env.BENCH_FULL === '1')
console.log(`2. per repetition, 1 test: 20 000 → flakeproof ${fmt(growth20k.flakeproof)}, native ${fmt(growth20k.native)}; 100 000 → flakeproof ${fmt(growth100k.flakeproof)}, native ${fmt(growth100k.native)}`)
console.log(`   flakeproof growth 20k→100k: ${(growth100k.flakeproof / growth20k.flakeproof).toFixed(2)}× per repetition (1.0 = linear)`)

const memory = { flakeproof: [], native: [], plain: [] }
for (let round = 0; round < ROUNDS; round++) {
  memory.flakeproof.push(run({ tests: 500, repeat: 200, native: false }).mb)
  memory.native.push(run({ tests: 500, repeat: 200, native: true }).mb)
}
const ratio = median(memory.flakeproof) / median(memory.native)
console.log(`3. peak RSS, 500 tests × 200: flakeproof ${median(memory.flakeproof).toFixed(0)} MB, native repeats ${median(memory.native).toFixed(0)} MB, ratio ${ratio.toFixed(2)} (target <= 1.5)`)
rmSync(out, { recursive: true, force: true })
