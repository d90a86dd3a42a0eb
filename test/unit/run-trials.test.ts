import { type ChildProcess, spawn } from 'node:child_process'
import { EventEmitter } from 'node:events'
import { join } from 'node:path'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { type RunControl, runTrials, type TrialRecord } from '../../src/runner/run-trials.js'
import { tempDir } from '../utils.js'

vi.mock('node:child_process', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:child_process')>()
  return { ...real, spawn: vi.fn(real.spawn) }
})

const realSpawn = (await vi.importActual<typeof import('node:child_process')>('node:child_process')).spawn

/** What Node does on EMFILE/ENFILE: no pipes, and 'error' on the next tick. */
function emitsEmfile(): ChildProcess {
  const child = Object.assign(new EventEmitter(), { stdout: null, stderr: null, pid: undefined }) as unknown as ChildProcess
  process.nextTick(() => child.emit('error', Object.assign(new Error('spawn /bin/sh EMFILE'), { code: 'EMFILE' })))
  return child
}

/** What Node does for errno values it does not expect at run time: throw from spawn() itself. */
function throwsEnomem(): never {
  throw Object.assign(new Error('spawn ENOMEM'), { code: 'ENOMEM' })
}

/** The first `started` spawns are real; every later one fails the given way. */
function failAfter(started: number, failure: () => ChildProcess): number[] {
  const pids: number[] = []
  vi.mocked(spawn).mockImplementation(((...args: Parameters<typeof realSpawn>) => {
    if (pids.length >= started) return failure()
    const child = realSpawn(...args)
    pids.push(child.pid as number)
    return child
  }) as typeof spawn)
  return pids
}

function control(): RunControl & { startFailures: Error[] } {
  const startFailures: Error[] = []
  return { stop: new AbortController().signal, abort: new AbortController().signal, startFailures, onStartFailure: (e) => startFailures.push(e) }
}

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe('runTrials when the system refuses to start a trial', () => {
  beforeEach(() => {
    vi.mocked(spawn).mockClear()
  })

  it.each([
    ['emits EMFILE with no pipes', emitsEmfile],
    ['throws ENOMEM', throwsEnomem],
  ])('stops the run when spawn %s: the refused trial is not counted, the finished ones are', async (_name, failure) => {
    failAfter(2, failure)
    const records: TrialRecord[] = []
    const run = control()
    // `sleep 0` is started directly (plain words): one spawn per trial.
    const summary = await runTrials({ command: 'sleep 0', trials: 10, gapMs: 0, timeoutMs: null, jobs: 1 }, run, (r) => records.push(r))
    expect(summary).toMatchObject({ complete: false })
    expect(records.map((r) => [r.trial, r.outcome])).toEqual([[1, 'passed'], [2, 'passed']])
    expect(run.startFailures.map((e) => e.message)).toEqual([expect.stringMatching(/^cannot start `sleep 0` \((EMFILE|ENOMEM)\)$/)])
    // Direct start, then the shell: both refused, and no further trial was tried.
    expect(vi.mocked(spawn)).toHaveBeenCalledTimes(4)
  })

  it('kills the trials already running (no orphans) and tells the caller once', async () => {
    const pids = failAfter(2, emitsEmfile)
    const records: TrialRecord[] = []
    const run = control()
    const summary = await runTrials({ command: 'sleep 60', trials: 10, gapMs: 0, timeoutMs: null, jobs: 4 }, run, (r) => records.push(r))
    expect(summary).toMatchObject({ complete: false })
    expect(records).toEqual([])
    expect(run.startFailures).toHaveLength(1)
    expect(pids).toHaveLength(2)
    // Each was its own process group's leader, reaped by the runner once killed.
    expect(pids.filter(isAlive)).toEqual([])
  })
})

describe('runTrials when a finished trial cannot be recorded', () => {
  it('stops, kills the trials still running, and throws the error once none is left', async () => {
    const pids = failAfter(Number.POSITIVE_INFINITY, emitsEmfile)
    const full = Object.assign(new Error('disk full'), { code: 'ENOSPC' })
    const recorded: number[] = []
    const onTrial = (record: TrialRecord): void => {
      recorded.push(record.trial)
      throw full
    }
    // mkdir is atomic: exactly one trial passes at once, the other three would sleep for a minute.
    const command = `mkdir ${join(tempDir(), 'first')} 2>/dev/null && exit 0; sleep 60`
    await expect(runTrials({ command, trials: 4, gapMs: 0, timeoutMs: null, jobs: 4 }, control(), onTrial)).rejects.toBe(full)
    expect(recorded).toHaveLength(1)
    expect(pids).toHaveLength(4)
    expect(pids.filter(isAlive)).toEqual([])
  })
})
