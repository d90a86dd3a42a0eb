import { type ChildProcess, spawn } from 'node:child_process'

/** Every process this process keeps spinning now: load it means to meet, which sampling counts (src/pipeline/run-conditions.ts). */
const SPINNING = new Set<number>()

/** The processes spinning now, a live view. */
export function spinningProcesses(): ReadonlySet<number> {
  return SPINNING
}

/**
 * Keeps the machine busy during a load round: `procs` Node processes spinning on a CPU each. They
 * are this process's children, ended by their pids when the round ends (and on exit, should the
 * round never end), never by name.
 */
export function startLoad(procs: number): { stop(): void } {
  const children: ChildProcess[] = []
  for (let i = 0; i < procs; i++) {
    children.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }))
  }
  for (const child of children) if (child.pid !== undefined) SPINNING.add(child.pid)
  const stop = (): void => {
    for (const child of children) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
      if (child.pid !== undefined) SPINNING.delete(child.pid)
    }
    process.removeListener('exit', stop)
  }
  process.on('exit', stop)
  return { stop }
}
