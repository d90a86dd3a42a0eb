import { type ChildProcess, spawn } from 'node:child_process'

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
  const stop = (): void => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    process.removeListener('exit', stop)
  }
  process.on('exit', stop)
  return { stop }
}
