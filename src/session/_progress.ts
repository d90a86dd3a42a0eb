import type { JournalProgress, JournalReader } from '../artifacts/journal.js'

/** Seconds between progress lines: often on a terminal, sparingly in a CI log. */
const EVERY_MS = { tty: 2_000, log: 10_000 }
/** Runs shorter than this print no progress at all. */
const QUIET_FOR_MS = 3_000

/**
 * Progress of a long measurement, read from the workers' journal (which they write as each
 * repetition ends, even while a long synchronous test keeps Vitest's own updates waiting):
 * one line each time: repetitions done and failed, the tests under way done/total and an ETA.
 * Printed as lines through the runner's log, not redrawn in place: Vitest's window renderer and
 * Jest's status line both intercept the terminal's streams and redraw its last lines themselves.
 */
export class ProgressPrinter {
  private readonly _journal: JournalReader
  private readonly _log: (line: string) => void
  private readonly _everyMs: number
  private readonly _startedAt = Date.now()
  private readonly _firstSeen = new Map<string, { at: number; done: number }>()
  private readonly _timer: NodeJS.Timeout
  private _lastPrinted = 0

  constructor(journal: JournalReader, log: (line: string) => void, options: { tty: boolean }) {
    this._journal = journal
    this._log = log
    this._everyMs = options.tty ? EVERY_MS.tty : EVERY_MS.log
    this._timer = setInterval(() => this._tick(), 1_000)
    this._timer.unref()
  }

  stop(): void {
    clearInterval(this._timer)
  }

  // --- internal ---

  private _tick(): void {
    const now = Date.now()
    if (now - this._startedAt < QUIET_FOR_MS || now - this._lastPrinted < this._everyMs) return
    this._lastPrinted = now
    this._log(describeProgress(this._journal.read(), this._firstSeen, now))
  }
}

/**
 * The progress line for one moment: repetitions done and failed in all, then of the tests under
 * way their repetitions done/planned and the time left for the slowest of them (they run side by
 * side, in workers). One line, however many tests run at once: a run of 40 s prints 20 lines, not
 * two per test. `firstSeen` remembers when each test was first seen, for its ETA.
 */
export function describeProgress(progress: JournalProgress, firstSeen: Map<string, { at: number; done: number }>, now: number): string {
  let done = 0
  let planned = 0
  let running = 0
  let leftMs: number | undefined
  for (const [id, test] of progress.tests) {
    if (test.ended) continue
    const count = test.repetitions.length
    running++
    done += Math.min(count, test.planned)
    planned += test.planned
    const seen = firstSeen.get(id) ?? { at: now, done: count }
    firstSeen.set(id, seen)
    if (count > seen.done) leftMs = Math.max(leftMs ?? 0, (Math.max(0, test.planned - count) * (now - seen.at)) / (count - seen.done))
  }
  const all = `[flakeproof] ${progress.repetitions} repetition(s) done, ${progress.failures} failed`
  if (running === 0) return all
  const eta = leftMs === undefined ? '' : `, about ${formatDuration(leftMs)} left`
  return `${all}; under way: ${done} of ${planned} repetitions of ${running} test(s)${eta}`
}

function formatDuration(ms: number): string {
  const seconds = Math.ceil(ms / 1000)
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`
}
