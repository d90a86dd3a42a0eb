import { countOf } from '../artifacts/counts-text.js'
import type { ObserverFile, RateFile } from '../artifacts/schemas.js'
import { compareCounts } from '../core/difference.js'
import { fisherExactTwoSided } from '../core/fisher.js'
import { complement, type Fraction, lessThan } from '../core/fraction.js'
import { describeRate } from '../core/rate.js'

type Observation = ObserverFile['fast']

/** One measurement as the observer compares it. */
export function toObservation(rate: Pick<RateFile, 'trials' | 'failures' | 'gap_ms'>, confidence: number): Observation {
  return { ...describeRate(rate.failures, rate.trials, confidence), gap_ms: rate.gap_ms }
}

/**
 * observer.json: the fast and the gapped measurement in full, Fisher's exact two-sided p-value on
 * their failures/passes, and `changed` when p < 1 - c (decided exactly). A symptom that vanishes
 * when slowed down is written as a clue about timing, never as a fix.
 */
export function compareObservations(
  command: string,
  fast: Observation,
  slow: Observation,
  confidence: { value: number; exact: Fraction },
): ObserverFile {
  const fisher = fisherExactTwoSided({
    failuresA: fast.failures,
    passesA: fast.trials - fast.failures,
    failuresB: slow.failures,
    passesB: slow.trials - slow.failures,
  })
  const changed = lessThan(fisher.exact, complement(confidence.exact))
  return {
    schema_version: 1,
    command,
    fast,
    slow,
    confidence: confidence.value,
    p_value: fisher.pValue,
    changed,
    note: explain(fast, slow, changed, fisher.pValue),
  }
}

/**
 * One observation: the first block against the gapped repetitions, and, with pairs, the randomised
 * comparison (paired fast against gapped) that decides `changed` and leads the note (test mode, and
 * command mode's observe and investigate alike); the drift of the fast rate between the first
 * block and the pairs is said when significant. Null hypothesis of `changed`: the gap does nothing,
 * so a pair's two executions are exchangeable (Fisher's exact test, two-sided, below 1 − confidence).
 */
export function compareInterleaved(command: string, fast: Observation, paired: Observation, slow: Observation, confidence: { value: number; exact: Fraction }): ObserverFile {
  const blocks = compareObservations(command, fast, slow, confidence)
  if (paired.trials === 0) return blocks
  const randomised = compareObservations(command, paired, slow, confidence)
  const drift = compareCounts(fast, paired, complement(confidence.exact))
  const moved = drift.significant
    ? ` The fast rate itself moved between the first block (${countOf(fast.failures, fast.trials)}) and the interleaved repetitions (p = ${drift.pValue.toPrecision(3)}): load or time changed during the run.`
    : ''
  const note =
    `Gapped and fast repetitions interleaved, a seeded coin deciding the order in each pair, so time, load and any cycle of its own fall on both alike: ${randomised.note}${moved}` +
    ` (The first fast block against the gapped ones, not interleaved: p = ${blocks.p_value.toPrecision(3)}.)`
  return { ...blocks, changed: randomised.changed, note, paired, paired_p_value: randomised.p_value, drift_p_value: drift.pValue }
}

// --- internal ---

const percent = (o: Observation): string => `${(o.rate * 100).toFixed(1)}% (${countOf(o.failures, o.trials)})`

function explain(fast: Observation, slow: Observation, changed: boolean, pValue: number): string {
  if (fast.trials === 0 || slow.trials === 0) {
    const empty = fast.trials === 0 && slow.trials === 0 ? 'no trial ran on either side' : `the ${fast.trials === 0 ? 'fast' : 'slow'} side ran no trial`
    return `Nothing was observed: ${empty}, so there is nothing to compare.`
  }
  const p = `p = ${pValue.toPrecision(3)}`
  const rates = `fast ${percent(fast)} at ${fast.gap_ms} ms gaps, slow ${percent(slow)} at ${slow.gap_ms} ms gaps`
  if (!changed && slow.failures === 0 && fast.failures > 0) {
    return `The slow run saw no failure, but ${slow.trials} slow trials are too few to tell it from the fast rate (${rates}, ${p}); run more slow trials before drawing a conclusion.`
  }
  if (!changed) {
    return `No significant change (${rates}, ${p}): slowing down did not alter the symptom at these sample sizes.`
  }
  if (slow.rate < fast.rate) {
    return `Slowing down ${slow.failures === 0 ? 'made the failure vanish' : 'made it fail less'} (${rates}, ${p}): the failure depends on timing or order. That is a clue to the cause, not a fix.`
  }
  return `Slowing down made it fail more (${rates}, ${p}): something expires or times out between calls.`
}
