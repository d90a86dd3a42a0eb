import pc from 'picocolors'
import type { TestOutcome } from '../pipeline/test-run.js'

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`

/** The terminal summary: verdict, failures/trials, interval, runs a fix must pass; worst first. */
export function renderTable(outcomes: readonly TestOutcome[]): string[] {
  const rows = outcomes.map(({ tally, verdict, ci, greenRuns }) => ({
    verdict,
    counts: `${tally.fast.failures}/${tally.fast.trials}`,
    interval: `[${pct(ci.low)}, ${pct(ci.high)}]`,
    runs: greenRuns === null ? '–' : `fix: ${greenRuns} green runs`,
    slow: tally.slow.trials > 0 ? `slow ${tally.slow.failures}/${tally.slow.trials}` : '',
    id: tally.id.replace(/\r?\n/g, '\\n'),
  }))
  const width = (key: keyof (typeof rows)[number]): number => Math.max(...rows.map((r) => r[key].length))
  const paint = (verdict: string, text: string): string => (verdict === 'flaky' ? pc.yellow(text) : verdict === 'broken' ? pc.red(text) : pc.dim(text))
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
