import type { AttributionEntry } from './attribution-schema.js'

/**
 * The words of attribution (docs/attribution.md), one line per failed test: the terminal, the step
 * summary and the annotations all say it this way.
 */

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`

/** `6/30 on main [9.5%, 37.3%]`: the counts, where they come from, and their interval. */
function counted(entry: Omit<AttributionEntry, 'text'>): string {
  return `${entry.failures}/${entry.runs} ${where(entry)} [${pct(entry.ci_low)}, ${pct(entry.ci_high)}]`
}

function where(entry: Pick<AttributionEntry, 'basis' | 'branch'>): string {
  if (entry.basis === 'committed-policy') return 'in the committed policy'
  return entry.branch === null ? 'on other branches' : `on ${entry.branch}`
}

const quoted = (signature: string): string => `\`${signature.replaceAll('`', "'")}\``

/** The one line for a call, with its numbers. */
export function attributionText(entry: Omit<AttributionEntry, 'text'>, confidence: number): string {
  const alpha = pct(1 - confidence)
  switch (entry.call) {
    case 'known-flake': {
      const same = entry.signature_seen === null ? 'no signature in history to compare' : `same signature ${quoted(entry.signature ?? '')}`
      return `known flake: ${counted(entry)}, ${same}`
    }
    case 'new-signature': {
      const seen = entry.signatures.slice(0, 2).map((s) => `${quoted(s.signature)} ${s.count}×`)
      return `known flaky test failing a new way: ${counted(entry)}, never with ${quoted(entry.signature ?? '')} before (seen: ${seen.join(', ')})`
    }
    case 'new-failure':
      return `new failure: ${counted(entry)}; a failure had a ${pct(entry.predictive)} chance ((${entry.failures} + ½)/(${entry.runs} + 1)), below ${alpha}`
    case 'no-history': {
      const past = entry.runs === 0 ? 'no past run' : `${entry.runs - entry.failures}/${entry.runs} passed ${where(entry)}`
      const more = entry.runs_to_tell - entry.runs
      return `no history to tell: ${past}; ${entry.runs_to_tell} passing runs would tell${entry.runs > 0 ? ` (${more} more)` : ''}`
    }
  }
}

/** The step summary's cell: the call and its counts, short. */
export function attributionCell(entry: AttributionEntry): string {
  if (entry.call === 'no-history') return `no-history (${entry.runs} runs; ${entry.runs_to_tell} would tell)`
  return `${entry.call}: ${entry.failures}/${entry.runs} ${where(entry)}${entry.call === 'new-failure' ? `, ${pct(entry.predictive)}` : ''}`
}
