import pc from 'picocolors'
import type { PipelineContext, Progress } from '../pipeline/context.js'
import type { RunControl } from '../runner/run-trials.js'

/**
 * The CLI's side of a pipeline context: a live progress line on stderr when it is a terminal
 * (silent otherwise), stage lines, and Ctrl-C handling — the first stops after the running trial,
 * the second kills it.
 */
export function createTerminalContext(stderr: NodeJS.WriteStream): PipelineContext & { dispose: () => void } {
  const stop = new AbortController()
  const abort = new AbortController()
  const control: RunControl = { stop: stop.signal, abort: abort.signal }
  const live = stderr.isTTY === true
  let lastDraw = 0
  let drawn = false

  const clear = (): void => {
    if (drawn) stderr.write('\r\x1b[2K')
    drawn = false
  }
  const log = (line: string): void => {
    clear()
    stderr.write(`${pc.dim('flakeproof')} ${line}\n`)
  }
  const onSigint = (): void => {
    if (!stop.signal.aborted) {
      log(pc.yellow('stopping after the running trial; what was measured is kept (Ctrl-C again to kill it)'))
      stop.abort()
    } else {
      abort.abort()
    }
  }
  process.on('SIGINT', onSigint)

  const onProgress = (progress: Progress): void => {
    if (!live) return
    const now = Date.now()
    const last = progress.done === progress.total
    if (!last && now - lastDraw < 80) return
    lastDraw = now
    stderr.write(`\r\x1b[2K${renderProgress(progress)}`)
    drawn = true
    if (last) clear()
  }

  return {
    control,
    onProgress,
    log,
    dispose: () => {
      clear()
      process.off('SIGINT', onSigint)
    },
  }
}

/** `measure  37/200  7 failed  18.9%  ETA 12s` */
export function renderProgress({ label, done, total, failures, elapsedMs }: Progress): string {
  const rate = done === 0 ? 0 : failures / done
  const etaSeconds = done === 0 ? 0 : Math.ceil(((total - done) * elapsedMs) / done / 1000)
  const failed = failures > 0 ? pc.red(`${failures} failed`) : pc.green('0 failed')
  return `${pc.cyan(label)}  trial ${done}/${total}  ${failed}  ${(rate * 100).toFixed(1)}%  ETA ${etaSeconds}s`
}
