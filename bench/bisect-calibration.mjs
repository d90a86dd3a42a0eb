// The calibration of `flakeproof bisect` (docs/bisect.md): seeded simulated bisections over
// git-bayesect's scenarios (same commits, rates and confidence), with the command's own decision
// code (src/core/bisect-run.ts, through the built dist/src/core/bisect-simulation.js), reporting accuracy with its standard error, executions
// (mean/p50/p95) and process starts, beside git-bayesect's figures from its calibration script
// (issue 23: 200 seeded trials per row, confidence 0.95). Nothing is timed: costs are set, not
// measured, so the figures are the same on any machine. Run after `npm run build`:
//   node bench/bisect-calibration.mjs [--trials 200] [--seed 2026] [--smoke] [--write docs/bisect.md]
// --smoke: 5 trials of the first row (every table and column, in a second). --write: replaces the
// table between the markers in that file.
import { readFileSync, writeFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { BATCH_EFFICIENCY } from '../dist/src/core/bisect-policy.js'
import { calibrate } from '../dist/src/core/bisect-simulation.js'

const { values } = parseArgs({ options: { trials: { type: 'string', default: '200' }, seed: { type: 'string', default: '2026' }, smoke: { type: 'boolean', default: false }, write: { type: 'string' } } })
const trials = values.smoke ? 5 : Number(values.trials)
const seed = Number(values.seed)
const confidence = 0.95

/** git-bayesect's calibration, as run for issue 23: accuracy, mean, p50 and p95 executions (each one process). */
const SCENARIOS = [
  { commits: 128, before: 0.2, after: 0.8, bayesect: { accuracy: 0.96, mean: 58.7, p50: 51, p95: 121 } },
  { commits: 128, before: 0, after: 0.3, bayesect: { accuracy: 0.995, mean: 97.4, p50: 94, p95: 154 } },
  { commits: 128, before: 0, after: 0.1, bayesect: { accuracy: 0.995, mean: 313, p50: 297, p95: 522 } },
  { commits: 128, before: 0.05, after: 0.2, bayesect: { accuracy: 0.965, mean: 413, p50: 377, p95: 775 } },
  { commits: 64, before: 0.02, after: 0.3, bayesect: { accuracy: 0.975, mean: 122.7, p50: 112, p95: 227 } },
  { commits: 64, before: 0, after: 0.2, bayesect: { accuracy: 0.99, mean: 144, p50: 133, p95: 241 } },
]

/** A start that costs as much as 100 repetitions: Vitest's or Jest's start-up (~1 s) against a unit test's repetition (~10 ms). */
const START = 100
const CMD = { startMs: 1, repetitionMs: 0, processPerExecution: true }
const BATCHES = { startMs: START, repetitionMs: 1, processPerExecution: false }

const rows = (values.smoke ? SCENARIOS.slice(0, 1) : SCENARIOS).map((scenario) => {
  const run = (costs, extra = {}) => calibrate(scenario, { confidence, maxExecutions: 100_000, costs, ...extra }, trials, seed)
  const row = { scenario, cmd: run(CMD), executions: run(BATCHES), time: run(BATCHES, { batchEfficiency: 0 }), prior: run(CMD, { priorAtBad: 100 }) }
  process.stderr.write(`${scenario.commits} commits ${scenario.before} → ${scenario.after}: done\n`)
  return row
})

const f = (x, digits = 1) => x.toFixed(digits)
const acc = (c) => `${f(c.accuracy, 3)} ± ${f(c.standardError, 3)}`
const rates = (s) => `${s.commits} | ${s.before} → ${s.after}`
/** Time in repetitions: every start costs START, every repetition 1; each git-bayesect execution is a start and a repetition. */
const time = (c) => Math.round(c.starts.mean * START + c.executions.mean)
const lines = [
  `Seeded simulation, ${trials} bisections per row (seed ${seed}), confidence ${confidence}, no prior rate unless said, the culprit uniform over the commits after the good one. Accuracy ± its standard error √(a(1−a)/n). Executions count every in-process repetition as one; starts are process starts. git-bayesect's figures are from its own calibration script (200 trials per row), where every execution is one process.`,
  '',
  '**One process per execution** (`--cmd`), against git-bayesect:',
  '',
  '| commits | rate before → after | git-bayesect accuracy | mean | p50 | p95 executions | bisect accuracy | mean | p50 | p95 executions |',
  '|---|---|---|---|---|---|---|---|---|---|',
  ...rows.map(({ scenario: s, cmd }) => `| ${rates(s)} | ${s.bayesect.accuracy} | ${s.bayesect.mean} | ${s.bayesect.p50} | ${s.bayesect.p95} | ${acc(cmd)} | ${f(cmd.executions.mean)} | ${cmd.executions.p50} | ${cmd.executions.p95} |`),
  '',
  `**Batches of repetitions in one process** (\`--vitest\`, \`--jest\`), a start costing ${START} repetitions. Time is in repetitions (${START} per start, 1 per repetition); git-bayesect's is ${START + 1} per execution. \`--optimize time\` (the default) lets the expected information per measured cost alone size each batch; \`--optimize executions\` lets a batch lose at most ${Math.round((1 - BATCH_EFFICIENCY) * 100)}% of the information per execution of the best single execution.`,
  '',
  '| commits | rate before → after | `--optimize time`: accuracy | mean executions | mean starts | time | `--optimize executions`: accuracy | mean | p95 executions | mean starts | time | git-bayesect: starts | time |',
  '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ...rows.map(
    ({ scenario: s, executions: e, time: t }) =>
      `| ${rates(s)} | ${acc(t)} | ${f(t.executions.mean)} | ${f(t.starts.mean)} | ${time(t)} | ${acc(e)} | ${f(e.executions.mean)} | ${e.executions.p95} | ${f(e.starts.mean)} | ${time(e)} | ${s.bayesect.mean} | ${Math.round(s.bayesect.mean * (START + 1))} |`,
  ),
  '',
  '**With a measured rate**: one process per execution, given a rate.json of 100 executions at the bad commit (`--prior-from`; those 100 are not counted).',
  '',
  '| commits | rate before → after | accuracy | mean | p50 | p95 executions | mean executions against git-bayesect |',
  '|---|---|---|---|---|---|---|',
  ...rows.map(({ scenario: s, prior }) => `| ${rates(s)} | ${acc(prior)} | ${f(prior.executions.mean)} | ${prior.executions.p50} | ${prior.executions.p95} | ${f((prior.executions.mean / s.bayesect.mean) * 100, 0)}% |`),
]
const table = lines.join('\n')
process.stdout.write(`${table}\n`)

if (values.write) {
  const start = '<!-- bisect-calibration:start (generated by bench/bisect-calibration.mjs) -->'
  const end = '<!-- bisect-calibration:end -->'
  const doc = readFileSync(values.write, 'utf8')
  const from = doc.indexOf(start)
  const to = doc.indexOf(end)
  if (from < 0 || to < from) throw new Error(`${values.write} has no ${start} … ${end} markers`)
  writeFileSync(values.write, `${doc.slice(0, from + start.length)}\n${table}\n${doc.slice(to)}`)
  process.stderr.write(`table written to ${values.write}\n`)
}
