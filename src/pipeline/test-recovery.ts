import type { JournalTest } from '../artifacts/journal.js'
import type { Repetition, RepetitionMode, ReportedTest } from './test-evidence.js'

/** How the run ended for tests whose results never arrived. */
export type Unfinished =
  /** The worker died: the repetition it was running is a failure, named for the crash. */
  | { kind: 'crashed'; cause: string; at: number }
  /** The user stopped the run: the repetition under way is neither passed nor failed. */
  | { kind: 'interrupted' }

/**
 * Tests the journal saw begin and never end, as reported tests: every repetition they finished, plus
 * (when their worker died) the fatal one as a failure whose error names the crash. Their elapsed time
 * is measured up to when the crash was noticed: an upper bound, and said so.
 */
export function recoverUnfinished(
  open: ReadonlyMap<string, JournalTest>,
  ended: Unfinished,
  modeOf: (index: number) => RepetitionMode,
): ReportedTest[] {
  const recovered: ReportedTest[] = []
  for (const [id, test] of open) {
    if (!test.identity) continue
    const repetitions: Repetition[] = [...test.repetitions]
    if (ended.kind === 'crashed' && test.running) {
      repetitions.push({
        ok: false,
        elapsedMs: Math.max(0, ended.at - test.running.at),
        error: `the worker running this test ended during repetition ${test.running.index + 1} (elapsed time is until the crash was noticed): ${ended.cause}`,
        mode: modeOf(test.running.index),
        gapMs: 0,
      })
    }
    if (repetitions.length === 0) continue
    const { identity } = test
    recovered.push({
      project: identity.project,
      file: identity.file,
      name: identity.path.join(' > '),
      evidence: { id, path: identity.path, order: test.order, previousTest: null, worker: test.worker, seed: null, repetitions },
    })
  }
  return recovered
}
