import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { startOfStat } from '../core/cpu-load.js'

/** Whether a process with this pid exists now (EPERM: it does, another user's). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * When the process with this pid started, in clock ticks since boot (`/proc/<pid>/stat`), or
 * undefined where there is no /proc (macOS, Windows) or no such process: what tells a process from
 * an earlier one given the same pid.
 */
export function processStart(pid: number, proc = '/proc'): string | undefined {
  try {
    return startOfStat(readFileSync(join(proc, String(pid), 'stat'), 'utf8'))
  } catch {
    return undefined
  }
}
