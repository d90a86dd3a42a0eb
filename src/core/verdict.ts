/** The outcome words of CONTRACTS §1, used alike in code, JSON and markdown. */
export type Outcome = 'passed' | 'failed' | 'skipped'

/** CONTRACTS §1: `partial` is evidence too thin to call either way (a run cut short before any trial). */
export type Verdict = 'stable' | 'flaky' | 'broken' | 'partial'

/** The verdict for a subject measured over `trials` complete trials. */
export function computeVerdict(failures: number, trials: number): Verdict {
  if (trials === 0) return 'partial'
  if (failures === 0) return 'stable'
  return failures === trials ? 'broken' : 'flaky'
}
