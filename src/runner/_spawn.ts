import { spawn } from 'node:child_process'
import { performance } from 'node:perf_hooks'
import { plainArgv } from './_argv.js'
import { CappedCapture } from './_capture.js'

export interface ProcessResult {
  exitCode: number | null
  signal: string | null
  timedOut: boolean
  /** Ended by `abort` (a second Ctrl-C), not by itself: such a trial is not evidence. */
  aborted: boolean
  elapsedMs: number
  stdout: string
  stderr: string
  stdoutBytes: number
  stderrBytes: number
}

export interface SpawnOptions {
  timeoutMs: number | null
  /** Aborting kills the whole process group at once. */
  abort: AbortSignal
}

/** After SIGTERM, how long a process group gets to exit before SIGKILL. */
const KILL_GRACE_MS = 2000

/**
 * Runs `command` as the shell would, in a process group of its own (so a timeout kills the whole
 * tree, and a Ctrl-C at the terminal reaches flakeproof, not the trial), with stdin closed. A
 * command of plain words is started directly, which the shell would do too, minus ~1 ms of shell
 * start-up per trial; if its program is not found, the shell runs it and says so in its own words.
 */
export async function runShellCommand(command: string, options: SpawnOptions): Promise<ProcessResult> {
  const argv = plainArgv(command)
  if (argv) {
    const { spawnFailed, ...direct } = await runProcess(argv, options)
    if (!spawnFailed) return direct
  }
  const { spawnFailed: _, ...viaShell } = await runProcess(command, options)
  return viaShell
}

// --- internal ---

function runProcess(command: string | string[], options: SpawnOptions): Promise<ProcessResult & { spawnFailed: boolean }> {
  return new Promise((resolve) => {
    const started = performance.now()
    const stdio: ['ignore', 'pipe', 'pipe'] = ['ignore', 'pipe', 'pipe']
    const child =
      typeof command === 'string'
        ? spawn(command, { shell: true, detached: true, stdio })
        : spawn(command[0] as string, command.slice(1), { detached: true, stdio })
    const stdout = new CappedCapture()
    const stderr = new CappedCapture()
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk))
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk))

    let timedOut = false
    let aborted = false
    let graceTimer: NodeJS.Timeout | undefined
    const killGroup = (signal: NodeJS.Signals): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, signal)
      } catch {
        // The group is already gone.
      }
    }
    const terminate = (): void => {
      killGroup('SIGTERM')
      graceTimer = setTimeout(() => killGroup('SIGKILL'), KILL_GRACE_MS)
    }
    const timeoutTimer =
      options.timeoutMs === null
        ? undefined
        : setTimeout(() => {
            timedOut = true
            terminate()
          }, options.timeoutMs)
    const onAbort = (): void => {
      aborted = true
      killGroup('SIGKILL')
    }
    options.abort.addEventListener('abort', onAbort, { once: true })

    let exited: { exitCode: number | null; signal: string | null; elapsedMs: number } | undefined
    let spawnFailed = false
    let settled = false
    let drainTimer: NodeJS.Timeout | undefined
    const settle = (): void => {
      if (settled || !exited) return
      settled = true
      clearTimeout(timeoutTimer)
      clearTimeout(graceTimer)
      clearTimeout(drainTimer)
      options.abort.removeEventListener('abort', onAbort)
      resolve({
        ...exited,
        spawnFailed,
        timedOut,
        aborted,
        stdout: stdout.text(),
        stderr: stderr.text(),
        stdoutBytes: stdout.totalBytes,
        stderrBytes: stderr.totalBytes,
      })
    }
    child.on('exit', (exitCode, signal) => {
      exited = { exitCode, signal, elapsedMs: performance.now() - started }
      // Children left behind by the trial would hold its pipes open and leak into the next trial.
      killGroup('SIGKILL')
      drainTimer = setTimeout(() => {
        child.stdout.destroy()
        child.stderr.destroy()
        settle()
      }, 1000)
    })
    child.on('close', settle)
    child.on('error', (error) => {
      spawnFailed = true
      stderr.push(Buffer.from(`flakeproof: cannot start the command: ${error.message}\n`))
      exited ??= { exitCode: null, signal: null, elapsedMs: performance.now() - started }
      settle()
    })
  })
}
