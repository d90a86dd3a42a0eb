import { performance } from 'node:perf_hooks'
import { readBatchResult } from '../artifacts/batch-result.js'
import { stripAnsi } from '../core/ansi.js'
import { runShellCommand } from '../runner/_spawn.js'

/** What bisect observes at each commit. */
export type BisectSubject =
  | { kind: 'cmd'; command: string; timeoutMs: number | null }
  /** `flakeproof vitest` / `flakeproof jest` with these arguments (shell words, as typed). */
  | { kind: 'vitest' | 'jest'; args: string }

/** How to start flakeproof itself (the batches of --vitest and --jest run `flakeproof vitest|jest`). */
export interface SelfCommand {
  node: string
  bin: string
}

export interface Observation {
  executions: number
  failures: number
  starts: number
  /** Wall time of the whole batch, start-ups included. */
  wallMs: number
  /** Time inside the tests (in-process batches); null for --cmd, whose executions are whole processes. */
  testTimeMs: number | null
}

export type ObserveResult = Observation | { error: string } | { aborted: true }

export interface ObserveContext {
  abort: AbortSignal
  self: SelfCommand
  /** A fresh folder path (not yet made) for a batch's output. */
  scratch: () => string
}

/**
 * `batch` executions of the subject in the checkout `dir`. --cmd: one process each, failed on a
 * non-zero exit, a signal or a timeout. --vitest / --jest: one `flakeproof vitest|jest
 * --flaky-repeat <batch>` process, whose rate.json says how many rounds ran and failed; a batch
 * that wrote no measurement (the tests do not exist at that commit, the config does not load) is
 * an error, not a failure, because it says nothing about the rate.
 * @throws Error when the system refuses to start a process (EAGAIN, EMFILE): no execution happened
 */
export async function observeBatch(subject: BisectSubject, dir: string, batch: number, context: ObserveContext): Promise<ObserveResult> {
  const started = performance.now()
  if (subject.kind === 'cmd') {
    let failures = 0
    for (let i = 0; i < batch; i++) {
      const result = await runShellCommand(subject.command, { timeoutMs: subject.timeoutMs, abort: context.abort, cwd: dir })
      if (result.aborted) return { aborted: true }
      if (result.exitCode !== 0 || result.signal !== null || result.timedOut) failures++
    }
    return { executions: batch, failures, starts: batch, wallMs: performance.now() - started, testTimeMs: null }
  }
  const out = context.scratch()
  const command = [quote(context.self.node), quote(context.self.bin), subject.kind, '--flaky-repeat', String(batch), '--flaky-out', quote(out), '--flaky-out-anywhere', subject.args].join(' ')
  const result = await runShellCommand(command, { timeoutMs: null, abort: context.abort, cwd: dir })
  if (result.aborted) return { aborted: true }
  const wallMs = performance.now() - started
  try {
    const measured = readBatchResult(out)
    if (measured.trials === 0) return { error: `flakeproof ${subject.kind} ran no repetition${tailOf(result.stderr, result.stdout)}` }
    return { executions: measured.trials, failures: measured.failures, starts: 1, wallMs, testTimeMs: measured.testTimeMs }
  } catch {
    const how = result.signal ? `killed by ${result.signal}` : `exit code ${result.exitCode}`
    return { error: `flakeproof ${subject.kind} wrote no measurement (${how})${tailOf(result.stderr, result.stdout)}` }
  }
}

// --- internal ---

/** A word for the shell, whatever it holds. */
function quote(word: string): string {
  return /^[\w./@%+=:,-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`
}

/** The last line of what the batch printed, to say why it measured nothing. */
function tailOf(stderr: string, stdout: string): string {
  const last = (text: string): string | undefined =>
    stripAnsi(text)
      .trim()
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
      .at(-1)
  const line = last(stderr) ?? last(stdout)
  return line ? `: ${line.slice(0, 300)}` : ''
}
