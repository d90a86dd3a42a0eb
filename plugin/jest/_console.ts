import { EventEmitter } from 'node:events'
import { CAPTURE_LIMIT } from '../../src/session/worker.js'

/**
 * Jest's BufferedConsole (its console unless `--verbose` or `--silent`) keeps each call as an entry,
 * with the place it was called from, and prints them when the file ends. A copy's output is the
 * entries added while it ran: read from there, nothing wraps `console` (a wrapper would be the frame
 * Jest names as each call's place), and the copies whose output is not to be printed are taken out.
 */
interface ConsoleEntry {
  message: string
  type: string
}

/** The console's entries: a BufferedConsole's (Jest 29 and 30 name the field `_buffer`), Jest 30's CustomConsole's too. */
export function bufferOf(console: unknown): ConsoleEntry[] | undefined {
  const buffer = (console as { _buffer?: unknown } | undefined)?._buffer
  return Array.isArray(buffer) ? (buffer as ConsoleEntry[]) : undefined
}

const TO_STDERR = new Set(['error', 'warn', 'assert', 'trace'])

/**
 * A copy ended: the entries since `from` are its stdout and stderr (capped as every capture is);
 * unless `print`, they leave the buffer, so Jest prints only what it is to print.
 */
export function takeOutput(buffer: ConsoleEntry[], from: number, print: boolean): { stdout: string; stderr: string } {
  const entries = buffer.slice(from)
  if (!print) buffer.splice(from)
  const text = (stderr: boolean): string =>
    entries
      .filter((e) => TO_STDERR.has(e.type) === stderr)
      .map((e) => `${e.message}\n`)
      .join('')
      .slice(0, CAPTURE_LIMIT)
  return { stdout: text(false), stderr: text(true) }
}

/** Jest's CustomConsole (`--verbose`, one test file, `--silent`'s NullConsole) formats and prints each call at once. */
export function printsAtOnce(console: unknown): boolean {
  return typeof (console as { _formatBuffer?: unknown } | undefined)?._formatBuffer === 'function'
}

/** A console that prints as it is called (`--verbose`, a single test file): Node's Console writes to its `_stdout` and `_stderr`. */
interface PrintingConsole {
  _stdout?: { write(chunk: unknown, ...rest: unknown[]): unknown }
  _stderr?: { write(chunk: unknown, ...rest: unknown[]): unknown }
}

/** Output held while a copy runs, printed when it ends only if asked. */
export interface HeldOutput {
  release(print: boolean): void
}

/**
 * A copy starts under a console that prints at once: what it prints is held (already formatted by
 * Jest, each call's place included) until the copy ends, then printed or dropped. Undefined for a
 * console without streams of its own.
 */
export function holdOutput(console: unknown): HeldOutput | undefined {
  const target = console as PrintingConsole
  const { _stdout: stdout, _stderr: stderr } = target
  if (typeof stdout?.write !== 'function' || typeof stderr?.write !== 'function') return undefined
  const held: [typeof stdout, unknown][] = []
  // Node's Console listens for the stream's errors around each write: the sink is an emitter too.
  const sink = (stream: typeof stdout) => Object.assign(new EventEmitter(), { write: (chunk: unknown) => held.push([stream, chunk]) > 0 })
  target._stdout = sink(stdout)
  target._stderr = sink(stderr)
  return {
    release(print) {
      target._stdout = stdout
      target._stderr = stderr
      if (print) for (const [stream, chunk] of held) stream.write(chunk)
    },
  }
}
