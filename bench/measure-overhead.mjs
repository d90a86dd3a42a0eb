// flakeproof measure --trials 200 against a plain shell loop running the same command 200 times,
// measured side by side in one run (alternating, several rounds), reported as a ratio of medians.
// Absolute times on a shared 2-core machine are noise; the ratio is the figure. Target <= 1.10.
//   node bench/measure-overhead.mjs [--smoke]   BENCH_ROUNDS (3) BENCH_TRIALS (200) BENCH_COMMAND ("sleep 0.02")
import { join } from 'node:path'
import { BIN, median, printRatio, scratch, size, wallMs } from './_harness.mjs'

const TRIALS = size('BENCH_TRIALS', 200, 2)
const ROUNDS = size('BENCH_ROUNDS', 3, 1)
const COMMAND = process.env.BENCH_COMMAND ?? 'sleep 0.02'
const dir = scratch('measure')

const loop = () => wallMs({ file: 'sh', args: ['-c', `i=0; while [ $i -lt ${TRIALS} ]; do ${COMMAND}; i=$((i+1)); done`] })
const measure = () => wallMs({ args: [BIN, 'measure', '--cmd', COMMAND, '--trials', String(TRIALS), '--out', join(dir, 'rate.json')] })

const loopMs = []
const measureMs = []
for (let round = 0; round < ROUNDS; round++) {
  // Alternate which goes first so drift in machine load hits both sides alike.
  if (round % 2 === 0) {
    loopMs.push(loop())
    measureMs.push(measure())
  } else {
    measureMs.push(measure())
    loopMs.push(loop())
  }
}
// The fixed part of the overhead: starting Node and loading flakeproof, paid once per run.
const startupMs = median(Array.from({ length: ROUNDS }, () => wallMs({ args: [BIN, 'measure', '--cmd', 'true', '--trials', '1', '--out', join(dir, 'one.json')] })))

const [l, m] = [median(loopMs), median(measureMs)]
const perTrial = (ms) => (ms / TRIALS).toFixed(2)
console.log(`command: ${COMMAND}, ${TRIALS} trials, ${ROUNDS} rounds (median)`)
printRatio('measure vs shell loop', m / l, { at_most: 1.1 }, `shell loop ${l.toFixed(0)} ms (${perTrial(l)} ms/trial), flakeproof measure ${m.toFixed(0)} ms (${perTrial(m)} ms/trial)`)
console.log(`of which start-up: ${startupMs.toFixed(0)} ms once (node + modules); per trial: ${((m - startupMs - l) / TRIALS).toFixed(2)} ms (spawn from Node vs fork from sh)`)
