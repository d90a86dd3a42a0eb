import { type ChildProcess, spawn } from 'node:child_process'
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
  /** The folder it runs in (bisect's temporary checkout); the current one when absent. */
  cwd?: string
}

/** After SIGTERM, how long a process group gets to exit before SIGKILL. */
const KILL_GRACE_MS = 2000

/**
 * Runs `command` as the shell would, in a process group of its own (so a timeout kills the whole
 * tree, and a Ctrl-C at the terminal reaches flakeproof, not the trial), with stdin closed. A
 * command of plain words is started directly, which the shell would do too, minus ~1 ms of shell
 * start-up per trial; if its program is not found, the shell runs it and says so in its own words.
 * @throws Error when the system refuses to start even the shell (EAGAIN: too many processes;
 *   EMFILE/ENFILE: out of file descriptors): the command never ran, so there is no trial to count.
 */
export async function runShellCommand(command: string, options: SpawnOptions): Promise<ProcessResult> {
  const argv = plainArgv(command)
  if (argv) {
    const direct = await runProcess(argv, options)
    if (!('startError' in direct)) return direct
  }
  const viaShell = await runProcess(command, options)
  if ('startError' in viaShell) {
    const { code, message } = viaShell.startError
    throw new Error(`cannot start \`${command}\` (${code ?? message})`, { cause: viaShell.startError })
  }
  return viaShell
}

// --- internal ---

interface NotStarted {
  startError: NodeJS.ErrnoException
}

function runProcess(command: string | string[], options: SpawnOptions): Promise<ProcessResult | NotStarted> {
  return new Promise((resolve) => {
    const started = performance.now()
    const stdio: ['ignore', 'pipe', 'pipe'] = ['ignore', 'pipe', 'pipe']
    let child: ChildProcess
    try {
      child =
        typeof command === 'string'
          ? spawn(command, { shell: true, detached: true, stdio, cwd: options.cwd })
          : spawn(command[0] as string, command.slice(1), { detached: true, stdio, cwd: options.cwd })
    } catch (error) {
      // Node throws, rather than emitting 'error', for some errno values of spawn.
      resolve({ startError: error as NodeJS.ErrnoException })
      return
    }
    const stdout = new CappedCapture()
    const stderr = new CappedCapture()
    // Null after EMFILE/ENFILE: Node gives up before creating the pipes, and 'error' follows.
    child.stdout?.on('data', (chunk: Buffer) => stdout.push(chunk))
    child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk))

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
    let settled = false
    let drainTimer: NodeJS.Timeout | undefined
    const finish = (result: ProcessResult | NotStarted): void => {
      settled = true
      clearTimeout(timeoutTimer)
      clearTimeout(graceTimer)
      clearTimeout(drainTimer)
      options.abort.removeEventListener('abort', onAbort)
      resolve(result)
    }
    const settle = (): void => {
      if (settled || !exited) return
      finish({
        ...exited,
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
        child.stdout?.destroy()
        child.stderr?.destroy()
        settle()
      }, 1000)
    })
    child.on('close', settle)
    // Emitted when spawn(2) failed (we never call child.kill, its other source): nothing ran.
    child.on('error', (error: NodeJS.ErrnoException) => {
      if (settled || exited) return
      child.stdout?.destroy()
      child.stderr?.destroy()
      finish({ startError: error })
    })
  })
}
