// --flaky-repeat against Vitest's native `repeats` on the same trivial tests, side by side in one run.
// Per-repetition cost is the difference between a run with N repetitions and one with a single
// repetition (so start-up cancels out), divided by the repetitions; the figures are ratios.
//   1. cost per repetition at 2 000 repetitions (10 tests × 2 000), flakeproof / native: target <= 1.15
//   2. growth: 1 test × 20 000 and × 100 000 repetitions (native 4.1 is quadratic: BENCH_FULL=1 runs
//      its 100 000 too, which takes minutes)
//   3. peak memory (max RSS of any Vitest process) for 500 tests × 200 repetitions vs native: target <= 1.5
//   node bench/vitest-repeat.mjs [--smoke]   BENCH_ROUNDS (3)
import { spawnSync } from 'node:child_process'
import { cpSync } from 'node:fs'
import { join } from 'node:path'
import { installInto, median, printRatio, scratch, size, SMOKE, VITEST } from './_harness.mjs'

const out = scratch('repeat')
// A copy of bench/vitest-project with flakeproof installed, as a user's project has it.
const project = join(out, 'project')
cpSync(join(import.meta.dirname, 'vitest-project'), project, { recursive: true })
installInto(project)
const ROUNDS = size('BENCH_ROUNDS', 3, 1)
// Smoke: the same three measurements at sizes that take seconds, chosen to coincide (1 test × 20
// for the first ratio, the start of growth and memory) so that they share their runs (runOnce): 5
// Vitest runs instead of 9, every side of every ratio still run and parsed.
const [TESTS, AT] = SMOKE ? [1, 20] : [10, 2000]
const [GROWTH_FROM, GROWTH_TO] = SMOKE ? [20, 40] : [20_000, 100_000]
const [MEMORY_TESTS, MEMORY_REPEAT] = SMOKE ? [1, 20] : [500, 200]

/** Runs Vitest once; returns wall seconds and peak RSS in MB (GNU time). */
function run({ tests, repeat, native }) {
  const env = { ...process.env, BENCH_TESTS: String(tests), BENCH_NATIVE_REPEATS: native ? String(repeat - 1) : '0' }
  const args = ['-f', '%e %M', process.execPath, VITEST, 'run', ...(native ? [] : ['--', '--flaky-repeat', String(repeat), '--flaky-out', join(out, 'fp'), '--flaky-out-anywhere'])]
  const result = spawnSync('/usr/bin/time', args, { cwd: project, env, encoding: 'utf8' })
  if (result.status !== 0) throw new Error(`vitest exited ${result.status}: ${result.stderr.slice(-2000)}`)
  const [seconds, kb] = result.stderr.trim().split('\n').pop().split(' ').map(Number)
  return { seconds, mb: kb / 1024 }
}

/**
 * Runs by tests, repetitions, side and round: a measurement that needs a run already made in its
 * round reads that one (the one-repetition bases of growth always; in smoke mode more, see above).
 */
const runs = new Map()
function runOnce(tests, repeat, native, round) {
  const key = `${tests} ${repeat} ${native} ${round}`
  if (!runs.has(key)) runs.set(key, run({ tests, repeat, native }))
  return runs.get(key)
}

/** GNU time's resolution (`%e`), in seconds. */
const TICK = 0.01

/** Median over rounds, alternating flakeproof and native so machine drift hits both alike. */
function perRepetitionMicros(tests, repeat, withNative = true) {
  const sides = withNative ? [false, true] : [false]
  const samples = new Map(sides.map((native) => [native, []]))
  for (let round = 0; round < ROUNDS; round++) {
    for (const native of round % 2 ? [...sides].reverse() : sides) {
      const base = runOnce(tests, 1, native, round).seconds
      const full = runOnce(tests, repeat, native, round).seconds
      // At least one tick of GNU time's 0.01 s: at smoke sizes the repetitions cost less than the
      // noise, and a difference of 0 or below made the growth ratio -Infinity (a failed smoke test).
      samples.get(native).push((Math.max(full - base, TICK) / (tests * (repeat - 1))) * 1e6)
    }
  }
  return { flakeproof: median(samples.get(false)), native: withNative ? median(samples.get(true)) : undefined }
}

const fmt = (us) => (us === undefined ? '–' : `${us.toFixed(1)} µs`)
console.log(`Vitest repetition bench (${ROUNDS} rounds, medians)`)

const at = perRepetitionMicros(TESTS, AT)
printRatio('in-process repetition vs native repeats', at.flakeproof / at.native, { at_most: 1.15 }, `per repetition at ${AT} (${TESTS} tests): flakeproof ${fmt(at.flakeproof)}, native ${fmt(at.native)}`)

// Smoke: flakeproof's side only; the native side of growth is a figure, not a target.
const from = perRepetitionMicros(1, GROWTH_FROM, !SMOKE)
const to = perRepetitionMicros(1, GROWTH_TO, process.env.BENCH_FULL === '1')
console.log(`per repetition, 1 test: ${GROWTH_FROM} → flakeproof ${fmt(from.flakeproof)}, native ${fmt(from.native)}; ${GROWTH_TO} → flakeproof ${fmt(to.flakeproof)}, native ${fmt(to.native)}`)
printRatio('repetition cost growth', to.flakeproof / from.flakeproof, undefined, `per repetition, ${GROWTH_FROM} → ${GROWTH_TO} repetitions of 1 test (1.0 = linear)`)

const memory = { flakeproof: [], native: [] }
for (let round = 0; round < ROUNDS; round++) {
  memory.flakeproof.push(runOnce(MEMORY_TESTS, MEMORY_REPEAT, false, round).mb)
  memory.native.push(runOnce(MEMORY_TESTS, MEMORY_REPEAT, true, round).mb)
}
const [mine, theirs] = [median(memory.flakeproof), median(memory.native)]
printRatio('peak RSS vs native repeats', mine / theirs, { at_most: 1.5 }, `${MEMORY_TESTS} tests × ${MEMORY_REPEAT}: flakeproof ${mine.toFixed(0)} MB, native ${theirs.toFixed(0)} MB`)
