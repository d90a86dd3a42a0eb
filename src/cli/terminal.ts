import pc from 'picocolors'
import { stripAnsi } from '../core/ansi.js'
import { logLine } from '../core/workflow-command.js'
import type { PipelineContext, Progress } from '../pipeline/context.js'

type Colors = ReturnType<typeof pc.createColors>

/** What ended a run early, other than Ctrl-C. */
export type Interruption = { kind: 'signal'; signal: 'SIGTERM' | 'SIGHUP' } | { kind: 'start-failure'; error: Error }

export interface TerminalContext extends PipelineContext {
  /** Set when SIGTERM, SIGHUP or a trial the system refused to start ended the run. */
  readonly interruption: Interruption | undefined
  /** The latest progress of each batch of trials (by label), to be told when results cannot be written. */
  measured: () => Progress[]
  dispose: () => void
}

/**
 * The CLI's side of a pipeline context: a live progress line on stderr when it is a terminal
 * (silent otherwise), stage lines, and signals — the first Ctrl-C stops after the running trial,
 * the second kills it, and SIGTERM or SIGHUP kill it at once; what finished is kept either way.
 */
export function createTerminalContext(stderr: NodeJS.WriteStream, env: NodeJS.ProcessEnv = process.env): TerminalContext {
  const stop = new AbortController()
  const abort = new AbortController()
  const live = stderr.isTTY === true
  // Colour only for a person at a terminal: escape codes in a CI log or a file are noise.
  const c = pc.createColors(live && !env.NO_COLOR)
  const progressByLabel = new Map<string, Progress>()
  let interruption: Interruption | undefined
  let lastDraw = 0
  let drawn = false

  const clear = (): void => {
    if (drawn) stderr.write('\r\x1b[2K')
    drawn = false
  }
  const say = (line: string): void => {
    clear()
    stderr.write(`${logLine(`${c.dim('flakeproof')} ${line}`, env)}\n`)
  }
  const halt = (): void => {
    stop.abort()
    abort.abort()
  }
  const onSigint = (): void => {
    if (!stop.signal.aborted) {
      say(c.yellow('stopping after the running trial; what was measured is kept (Ctrl-C again to kill it)'))
      stop.abort()
    } else {
      abort.abort()
    }
  }
  const onTerminate = (signal: 'SIGTERM' | 'SIGHUP'): void => {
    if (signal === 'SIGHUP') {
      // The terminal is gone: writing to it fails (EIO), which must not end the run before its files are written.
      stderr.on('error', ignore)
      process.stdout.on('error', ignore)
    }
    interruption ??= { kind: 'signal', signal }
    // A command without trials (merge, history) has none to kill.
    say(c.yellow(progressByLabel.size > 0 ? `${signal}: killing the running trial; what finished is kept` : `${signal}: stopping`))
    halt()
  }
  process.on('SIGINT', onSigint)
  process.on('SIGTERM', onTerminate)
  process.on('SIGHUP', onTerminate)

  const onProgress = (progress: Progress): void => {
    progressByLabel.set(progress.label, progress)
    if (!live) return
    const now = Date.now()
    const last = progress.done === progress.total
    if (!last && now - lastDraw < 80) return
    lastDraw = now
    stderr.write(`\r\x1b[2K${renderProgress(progress, c)}`)
    drawn = true
    if (last) clear()
  }

  return {
    control: {
      stop: stop.signal,
      abort: abort.signal,
      onStartFailure: (error) => {
        interruption ??= { kind: 'start-failure', error }
        halt()
      },
    },
    onProgress,
    // Stage lines may quote a command or a file's text: their escape codes must not reach the terminal.
    log: (line) => say(stripAnsi(line)),
    get interruption() {
      return interruption
    },
    measured: () => [...progressByLabel.values()],
    dispose: () => {
      clear()
      process.off('SIGINT', onSigint)
      process.off('SIGTERM', onTerminate)
      process.off('SIGHUP', onTerminate)
    },
  }
}

/** `measure  37/200  7 failed  18.9%  ETA 12s` */
export function renderProgress({ label, done, total, failures, elapsedMs }: Progress, c: Colors): string {
  const rate = done === 0 ? 0 : failures / done
  const etaSeconds = done === 0 ? 0 : Math.ceil(((total - done) * elapsedMs) / done / 1000)
  const failed = failures > 0 ? c.red(`${failures} failed`) : c.green('0 failed')
  return `${c.cyan(label)}  trial ${done}/${total}  ${failed}  ${(rate * 100).toFixed(1)}%  ETA ${etaSeconds}s`
}

// --- internal ---

function ignore(): void {}
