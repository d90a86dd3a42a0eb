import type { JournalTest } from '../artifacts/journal.js'
import type { Repetition, RepetitionMode, ReportedTest } from './test-evidence.js'

/** How the run ended for tests whose results never arrived. */
export type Unfinished =
  /**
   * Workers died: the repetition a test was running when its worker died (`died`) is a failure,
   * named for the crash; a test whose worker lived on was only stopped.
   */
  | { kind: 'crashed'; cause: string; at: number; died: (test: JournalTest) => boolean }
  /** The user stopped the run: the repetition under way is neither passed nor failed. */
  | { kind: 'interrupted' }

/**
 * Tests whose results never arrived, from the journal, as reported tests: every repetition they
 * finished, plus (when their worker died under them) the fatal one as a failure whose error names
 * the crash, its elapsed time measured up to when the crash was noticed (an upper bound, and said
 * so). A test the journal saw end lost only its results on the way: it comes back whole. `cut`
 * marks evidence that stops short of what was planned.
 */
export function recoverUnfinished(
  open: ReadonlyMap<string, JournalTest>,
  ended: Unfinished,
  modeOf: (index: number, id: string) => RepetitionMode,
): ReportedTest[] {
  const recovered: ReportedTest[] = []
  for (const [id, test] of open) {
    if (!test.identity) continue
    const repetitions: Repetition[] = [...test.repetitions]
    if (ended.kind === 'crashed' && test.running && !test.ended && ended.died(test)) {
      repetitions.push({
        ok: false,
        elapsedMs: Math.max(0, ended.at - test.running.at),
        error: `the worker running this test ended during repetition ${test.running.index + 1} (elapsed time is until the crash was noticed): ${ended.cause}`,
        mode: modeOf(test.running.index, id),
        gapMs: 0,
      })
    }
    if (repetitions.length === 0) continue
    const { identity } = test
    recovered.push({
      project: identity.project,
      file: identity.file,
      name: identity.path.join(' > '),
      evidence: { id, path: identity.path, order: test.order, previousTest: null, worker: test.worker, seed: null, repetitions, ...(test.ended ? {} : { cut: true }) },
    })
  }
  return recovered
}
