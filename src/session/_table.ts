import pc from 'picocolors'
import type { ConditionsFile } from '../artifacts/conditions-schema.js'
import { countOf } from '../artifacts/counts-text.js'
import type { TestOutcome } from '../pipeline/test-run.js'

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`

/**
 * The terminal summary: verdict, "failures of trials", interval, runs a fix must pass; worst first.
 * A test the order search tagged is headlined `order-dependent` (and, failing only after its
 * culprit, gets no green runs: a rate of an order is no chance); a broken one, a bug, gets none.
 */
export function renderTable(outcomes: readonly TestOutcome[], conditions?: ConditionsFile): string[] {
  const rows = outcomes.map(({ tally, verdict, ci, greenRuns }) => {
    const order = conditions?.tests[tally.id]?.order
    const ordered = order?.tag === 'order-dependent'
    const onlyAfter = ordered && order.otherwise.failures === 0
    return {
      verdict: ordered ? 'order-dependent' : verdict,
      counts: countOf(tally.fast.failures, tally.fast.trials),
      interval: `[${pct(ci.low)}, ${pct(ci.high)}]`,
      runs: onlyAfter ? `fails after ${order.culprit}` : verdict === 'broken' ? 'fails every time: a bug' : greenRuns === null ? '–' : `fix: ${greenRuns} green runs`,
      slow: tally.slow.trials > 0 ? `slow ${countOf(tally.slow.failures, tally.slow.trials)}` : '',
      id: tally.id.replace(/\r?\n/g, '\\n'),
    }
  })
  const width = (key: keyof (typeof rows)[number]): number => Math.max(...rows.map((r) => r[key].length))
  const paint = (verdict: string, text: string): string => (verdict === 'flaky' || verdict === 'order-dependent' ? pc.yellow(text) : verdict === 'broken' ? pc.red(text) : pc.dim(text))
  return rows.map((r) =>
    [
      ' ',
      paint(r.verdict, r.verdict.toUpperCase().padEnd(width('verdict'))),
      r.counts.padStart(width('counts')),
      r.interval.padEnd(width('interval')),
      pc.dim(r.runs.padEnd(width('runs'))),
      r.slow.padEnd(width('slow')),
      r.id,
    ].join('  '),
  )
}
