import type { Fact, OnlyWhenFailFile } from '../artifacts/schemas.js'
import { rankPredicates, type TrialFacts } from '../core/isolation.js'
import { discriminateTokens, wordsInOrder } from '../core/tokens.js'

/**
 * only_when_fail.json from facts.jsonl: exit codes on each side, the discriminating token, the
 * failing trial numbers, and predicates ranked by how much more likely they make a failure.
 */
export function analyzeFacts(facts: readonly Fact[]): OnlyWhenFailFile {
  const counted = [...facts].filter((f) => f.outcome !== 'skipped').sort((a, b) => a.trial - b.trial)
  const failed = counted.filter((f) => f.outcome === 'failed')
  const passed = counted.filter((f) => f.outcome === 'passed')
  const tokens = discriminateTokens(counted.map((f) => ({ failed: f.outcome === 'failed', stdout: f.stdout, stderr: f.stderr })))
  return {
    schema_version: 1,
    trials: counted.length,
    failures: failed.length,
    exit_codes_on_failure: distinctCodes(failed),
    exit_codes_on_success: distinctCodes(passed),
    token: tokens.token,
    token_candidates: tokens.candidates,
    failure_trials: failed.map((f) => f.trial),
    predicates: rankPredicates(toTrialFacts(counted)),
  }
}

// --- internal ---

function distinctCodes(facts: readonly Fact[]): (number | null)[] {
  const codes = [...new Set(facts.map((f) => f.exit_code))]
  return codes.sort((a, b) => (a ?? Number.POSITIVE_INFINITY) - (b ?? Number.POSITIVE_INFINITY))
}

/**
 * The facts each trial offers to the predicate ranking. Order facts (the previous trial's outcome,
 * the rest since it ended) are looked up by start time, so they hold for parallel runs too, and are
 * "not observed" for the first trial.
 */
function toTrialFacts(facts: readonly Fact[]): TrialFacts[] {
  const byStart = [...facts].sort((a, b) => a.offset_ms - b.offset_ms)
  let previous: Fact | undefined
  const observations = new Map<number, TrialFacts>()
  for (const fact of byStart) {
    observations.set(fact.trial, {
      failed: fact.outcome === 'failed',
      categorical: {
        exit_code: fact.exit_code === null ? `none (signal ${fact.signal ?? 'unknown'})` : String(fact.exit_code),
        timed_out: String(fact.timed_out),
        previous_outcome: previous?.outcome,
      },
      numeric: {
        elapsed_ms: fact.elapsed_ms,
        stdout_bytes: fact.stdout_bytes,
        stderr_bytes: fact.stderr_bytes,
        gap_before_ms: previous === undefined ? undefined : Math.max(0, fact.offset_ms - (previous.offset_ms + previous.elapsed_ms)),
        concurrent: fact.concurrent,
      },
      words: new Set([...wordsInOrder(fact.stderr), ...wordsInOrder(fact.stdout)]),
    })
    previous = fact
  }
  return facts.map((f) => observations.get(f.trial) as TrialFacts)
}
