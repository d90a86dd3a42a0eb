/**
 * Counts in words, alike in the terminal, the markdown and the HTML report: "9 of 10", never "9/10",
 * so a proof that ran more repetitions than it required reads as such, not as "48/12 runs".
 */

/** `failures of trials`. */
export function countOf(part: number, whole: number): string {
  return `${part} of ${whole}`
}

/** A proof's repetitions against those required: "12 of 12 runs", or "48 runs, 12 required" when rounds ran more. */
export function proofRunsText(trials: number, required: number): string {
  return trials <= required ? `${trials} of ${required} runs` : `${trials} runs, ${required} required`
}
