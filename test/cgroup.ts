import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { cgroupDirectory, parseCgroupMembership, parseCgroupMounts } from '../src/core/cpu-load.js'
import { childEnv, type CliResult, settle } from './utils.js'

/**
 * A cgroup of its own with a CPU limit, for e2e tests of load per CPU: flakeproof counts the tasks of
 * the cgroup that limits the CPUs (docs/contracts.md §13.5), so inside one only the test's own
 * processes are load, whatever else the machine runs. That makes "under load" and "idle" the test's
 * to decide on a shared machine. Needs a writable cgroup file system (root, as CI here runs);
 * `available` says whether this machine gives one.
 */
export interface CpuCgroup {
  dir: string
  /** Runs `node <args>` inside the cgroup (its children stay there), as test/utils.ts runNodeIn does. */
  runNode(cwd: string, args: string[], env?: Record<string, string>): Promise<CliResult>
  /** Processes spinning on a CPU inside the cgroup: load the run under test did not create. */
  spin(procs: number): { stop(): Promise<void> }
  /** Ends what is left in it and removes it. */
  remove(): Promise<void>
}

/** Where a child cgroup with a CPU limit can be made here, or undefined. */
function parentCgroup(): { dir: string; version: 1 | 2 } | undefined {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return undefined
  try {
    const membership = parseCgroupMembership(readFileSync('/proc/self/cgroup', 'utf8'))
    const mounts = parseCgroupMounts(readFileSync('/proc/self/mountinfo', 'utf8'))
    const v1 = mounts.find((m) => m.version === 1 && m.controllers.includes('cpu'))
    const v1Dir = v1 && membership.controllers.cpu !== undefined ? cgroupDirectory(v1, membership.controllers.cpu) : undefined
    if (v1Dir && existsSync(join(v1Dir, 'cpu.cfs_quota_us'))) return { dir: v1Dir, version: 1 }
    const v2 = mounts.find((m) => m.version === 2)
    const v2Dir = v2 && membership.unified !== undefined ? cgroupDirectory(v2, membership.unified) : undefined
    if (v2Dir && readFileSync(join(v2Dir, 'cgroup.subtree_control'), 'utf8').includes('cpu')) return { dir: v2Dir, version: 2 }
  } catch {
    return undefined
  }
  return undefined
}

const PARENT = parentCgroup()

/** Whether this machine lets a test make a cgroup with a CPU limit. */
export const cgroupsAvailable = PARENT !== undefined

let made = 0

/**
 * A new cgroup limited to `cpus` CPUs. Its weight is raised so that, as one group among the
 * machine's other tasks, it is not starved (a v1 group competes as a single task of weight 1024).
 */
export function makeCpuCgroup(cpus: number): CpuCgroup {
  if (!PARENT) throw new Error('no writable cgroup with a cpu controller here (root on Linux is needed)')
  const dir = join(PARENT.dir, `flakeproof-e2e-${process.pid}-${++made}`)
  mkdirSync(dir)
  if (PARENT.version === 1) {
    writeFileSync(join(dir, 'cpu.cfs_period_us'), '100000')
    writeFileSync(join(dir, 'cpu.cfs_quota_us'), String(Math.round(cpus * 100000)))
    writeFileSync(join(dir, 'cpu.shares'), String(1024 * 8))
  } else {
    writeFileSync(join(dir, 'cpu.max'), `${Math.round(cpus * 100000)} 100000`)
    writeFileSync(join(dir, 'cpu.weight'), '800')
  }
  const procs = join(dir, 'cgroup.procs')
  const children = new Set<ChildProcess>()
  /** sh joins the cgroup, then becomes the program: everything it starts is inside. */
  const inside = (cwd: string, command: string[], env: Record<string, string>, stdio: 'pipe' | 'ignore'): ChildProcess => {
    const child = spawn('/bin/sh', ['-c', 'echo $$ > "$0" && exec "$@"', procs, ...command], { cwd, env: { ...childEnv(), CI: 'true', NO_COLOR: '1', ...env }, stdio: ['ignore', stdio, stdio] })
    children.add(child)
    child.on('close', () => children.delete(child))
    return child
  }
  return {
    dir,
    runNode: (cwd, args, env = {}) => settle(inside(cwd, [process.execPath, ...args], env, 'pipe')),
    spin(n) {
      const spinners = Array.from({ length: n }, () => inside(process.cwd(), [process.execPath, '-e', 'for (;;) {}'], {}, 'ignore'))
      return {
        async stop() {
          for (const child of spinners) child.kill('SIGKILL')
          await Promise.all(spinners.map((child) => (child.exitCode === null && child.signalCode === null ? new Promise((done) => child.once('close', done)) : undefined)))
        },
      }
    },
    async remove() {
      for (const child of children) child.kill('SIGKILL')
      // A cgroup can be removed once its last task has left it.
      for (let attempt = 0; attempt < 100; attempt++) {
        try {
          rmdirSync(dir)
          return
        } catch {
          await sleep(50)
        }
      }
    },
  }
}
