/**
 * Counts in words, alike in the terminal, the markdown and the HTML report: "9 of 10", never "9/10",
 * so a proof that ran more repetitions than it required reads as such, not as "48/12 runs".
 */

/** `failures of trials`. */
export function countOf(part: number, whole: number): string {
  return `${part} of ${whole}`
}

/**
 * Tests whose failures a round count leaves out (non-idempotent, undetermined: they follow, or may
 * follow, the test's own repetitions), so the headline can say so beside "failed 0 of 10 rounds".
 */
export function uncountedTests(tests: readonly { verdict: string; failures: number }[] | undefined): number {
  return (tests ?? []).filter((t) => t.failures > 0 && (t.verdict === 'non-idempotent' || t.verdict === 'undetermined')).length
}

/** A proof's repetitions against those required: "12 of 12 runs", or "48 runs, 12 required" when rounds ran more. */
export function proofRunsText(trials: number, required: number): string {
  return trials <= required ? `${trials} of ${required} runs` : `${trials} runs, ${required} required`
}
