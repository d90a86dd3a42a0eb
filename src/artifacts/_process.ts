import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { hasEnded, startOfStat, stateOfStat } from '../core/cpu-load.js'

/**
 * Whether a process with this pid is alive now (EPERM: it is, another user's). A zombie is not: it
 * has ended and waits only for its parent to collect its status. A Jest or Playwright worker that
 * died stays one until its runner reaps it, which on a busy machine may come after the run's end
 * asks (src/session/test-session.ts, a run that "stopped"): counted alive, the repetition it cut
 * short would be "stopped", not the crash it was; a lock or run marker of an ended run, held.
 */
export function isProcessAlive(pid: number, proc = '/proc'): boolean {
  try {
    process.kill(pid, 0)
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
  const stat = readStat(pid, proc)
  const state = stat === undefined ? undefined : stateOfStat(stat)
  return state === undefined || !hasEnded(state)
}

/**
 * When the process with this pid started, in clock ticks since boot (`/proc/<pid>/stat`), or
 * undefined where there is no /proc (macOS, Windows) or no such process: what tells a process from
 * an earlier one given the same pid.
 */
export function processStart(pid: number, proc = '/proc'): string | undefined {
  const stat = readStat(pid, proc)
  return stat === undefined ? undefined : startOfStat(stat)
}

/** `/proc/<pid>/stat`, or undefined where there is none (macOS, Windows, the process gone). */
function readStat(pid: number, proc: string): string | undefined {
  try {
    return readFileSync(join(proc, String(pid), 'stat'), 'utf8')
  } catch {
    return undefined
  }
}

