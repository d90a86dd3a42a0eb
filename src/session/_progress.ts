import type { JournalProgress, JournalReader } from '../artifacts/journal.js'

/** Seconds between progress lines: often on a terminal, sparingly in a CI log. */
const EVERY_MS = { tty: 2_000, log: 10_000 }
/** Runs shorter than this print no progress at all. */
const QUIET_FOR_MS = 3_000

/**
 * Progress of a long measurement, read from the workers' journal (which they write as each
 * repetition ends, even while a long synchronous test keeps Vitest's own updates waiting):
 * repetitions done, failures so far, and per test under way done/total, its failures and an ETA.
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
    for (const line of describeProgress(this._journal.read(), this._firstSeen, now)) this._log(line)
  }
}

/** The progress lines for one moment; `firstSeen` remembers when each test was first seen, for its ETA. */
export function describeProgress(progress: JournalProgress, firstSeen: Map<string, { at: number; done: number }>, now: number): string[] {
  const lines = [`[flakeproof] ${progress.repetitions} repetition(s) done, ${progress.failures} failed`]
  for (const [id, test] of progress.tests) {
    if (test.ended) continue
    const done = test.repetitions.length
    const failed = test.repetitions.filter((r) => !r.ok).length
    const seen = firstSeen.get(id) ?? { at: now, done }
    firstSeen.set(id, seen)
    const perRepetitionMs = done > seen.done ? (now - seen.at) / (done - seen.done) : undefined
    const left = Math.max(0, test.planned - done)
    const eta = perRepetitionMs === undefined ? '' : `, about ${formatDuration(left * perRepetitionMs)} left`
    lines.push(`[flakeproof]   ${id}: ${done}/${test.planned}, ${failed} failed${eta}`)
  }
  return lines
}

function formatDuration(ms: number): string {
  const seconds = Math.ceil(ms / 1000)
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`
}
