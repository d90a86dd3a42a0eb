// flakeproof measure --trials 200 against a plain shell loop running the same command 200 times,
// measured side by side in one run (alternating, several rounds), reported as a ratio of medians.
// Absolute times on a shared 2-core machine are noise; the ratio is the figure.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'

const TRIALS = 200
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const COMMAND = process.env.BENCH_COMMAND ?? 'sleep 0.02'
const bin = join(import.meta.dirname, '..', 'dist/src/cli/bin.js')
const dir = mkdtempSync(join(tmpdir(), 'flakeproof-bench-'))

function time(file, args) {
  const started = performance.now()
  const result = spawnSync(file, args, { stdio: ['ignore', 'ignore', 'inherit'] })
  if (result.status !== 0) throw new Error(`${file} ${args.join(' ')} exited ${result.status}`)
  return performance.now() - started
}

const loop = () => time('sh', ['-c', `i=0; while [ $i -lt ${TRIALS} ]; do ${COMMAND}; i=$((i+1)); done`])
const measure = () => time(process.execPath, [bin, 'measure', '--cmd', COMMAND, '--trials', String(TRIALS), '--out', join(dir, 'rate.json')])
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

const loopMs = []
const measureMs = []
for (let round = 0; round < ROUNDS; round++) {
  // Alternate which goes first so drift in machine load hits both sides alike.
  if (round % 2 === 0) { loopMs.push(loop()); measureMs.push(measure()) } else { measureMs.push(measure()); loopMs.push(loop()) }
}
// The fixed part of the overhead: starting Node and loading flakeproof, paid once per run.
const startupMs = median(Array.from({ length: ROUNDS }, () => time(process.execPath, [bin, 'measure', '--cmd', 'true', '--trials', '1', '--out', join(dir, 'one.json')])))
rmSync(dir, { recursive: true, force: true })

const ratio = median(measureMs) / median(loopMs)
const perTrial = (ms) => (ms / TRIALS).toFixed(2)
console.log(`command: ${COMMAND}, ${TRIALS} trials, ${ROUNDS} rounds (median)`)
console.log(`shell loop:          ${median(loopMs).toFixed(0)} ms (${perTrial(median(loopMs))} ms/trial)`)
console.log(`flakeproof measure:  ${median(measureMs).toFixed(0)} ms (${perTrial(median(measureMs))} ms/trial)`)
console.log(`ratio measure/loop:  ${ratio.toFixed(3)} (overhead ${((ratio - 1) * 100).toFixed(1)}%; target <= 10%)`)
const perTrialOverhead = (median(measureMs) - startupMs - median(loopMs)) / TRIALS
console.log(`of which start-up:   ${startupMs.toFixed(0)} ms once (node + modules); per trial: ${perTrialOverhead.toFixed(2)} ms (spawn from Node vs fork from sh)`)
