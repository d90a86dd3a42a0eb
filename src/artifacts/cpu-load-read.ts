import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { availableParallelism, loadavg } from 'node:os'
import { join } from 'node:path'
import {
  cgroupAncestry,
  cgroupDirectory,
  childrenFromParents,
  cpusOfCfsQuota,
  cpusOfCpuMax,
  isLiveStat,
  isRunnableStat,
  type LoadSource,
  parentOfStat,
  parseCgroupMembership,
  parseCgroupMounts,
  parseChildren,
  processTree,
  runnableOfLoadavg,
  type Throttling,
  throttlingOfCpuStat,
} from '../core/cpu-load.js'

/** Where a run's load is counted, and over how many CPUs. */
export interface LoadScope {
  source: LoadSource
  /** CPUs available to the run: the cgroup's limit where one is set (at most the machine's), else the machine's. */
  cpus: number
  /** source `cgroup`: the folder of the cgroup that sets the limit, whose tasks (its descendants' too) are counted. */
  cgroup?: { dir: string; version: 1 | 2 }
}

/** Where the kernel's files are: `/proc`, or a copy of its layout (tests). */
export interface SystemRoots {
  proc: string
}

const SYSTEM: SystemRoots = { proc: '/proc' }

/** A sample counts at most this many tasks of a cgroup: a bound on the files read every half second. */
const MAX_TASKS = 20_000

/**
 * Finds where the load of this process is counted (docs/contracts.md §13.5): the nearest cgroup, of
 * this process's own or above it, that limits the CPUs (cgroup v2 `cpu.max`, v1 `cpu.cfs_quota_us`),
 * else the whole system through `/proc/loadavg`, else (no /proc: macOS, Windows) Node's load average.
 */
export function findLoadScope(roots: SystemRoots = SYSTEM, hostCpus = availableParallelism()): LoadScope {
  const limited = limitingCgroup(roots)
  if (limited) return { source: 'cgroup', cpus: Math.min(limited.cpus, hostCpus), cgroup: { dir: limited.dir, version: limited.version } }
  return { source: existsSync(join(roots.proc, 'loadavg')) ? 'proc' : 'loadavg', cpus: hostCpus }
}

/** The run whose own tasks a sample leaves out: its process, and the processes it spins on purpose (counted as load). */
export interface OwnRun {
  pid: number
  stress: ReadonlySet<number>
}

/**
 * Tasks ready to run now, in the scope, the run's own left out (its process and those below it,
 * bar its spinning ones); undefined when the files could not be read. `loadavg` has no count of the
 * moment and no tasks to leave out: it samples the one-minute load average.
 */
export function sampleRunnable(scope: LoadScope, own: OwnRun = { pid: process.pid, stress: new Set() }, roots: SystemRoots = SYSTEM): number | undefined {
  try {
    if (scope.source === 'loadavg') return loadavg()[0]
    const ownTasks = tasksOfProcesses(ownProcesses(own, roots), roots)
    const statOf = (tid: string | number): string => readIfThere(join(roots.proc, String(tid), 'stat')) ?? ''
    // A process the run spins is load it means to meet from the moment it is started: its main thread
    // counts whether or not it is on a CPU at this instant (still starting, or between time slices),
    // so a short run's first samples do not find less load than it keeps (until it has ended).
    const spun = (tid: string): boolean => own.stress.has(Number(tid)) && isLiveStat(statOf(tid))
    if (scope.source === 'proc') {
      const running = runnableOfLoadavg(readFileSync(join(roots.proc, 'loadavg'), 'utf8'))
      if (running === undefined) return undefined
      const ownRunning = [...ownTasks].filter((tid) => isRunnableStat(statOf(tid))).length
      const spunAside = [...own.stress].map(statOf).filter((stat) => isLiveStat(stat) && !isRunnableStat(stat)).length
      return Math.max(0, running - ownRunning) + spunAside
    }
    const cgroup = scope.cgroup as NonNullable<LoadScope['cgroup']>
    let runnable = 0
    for (const tid of tasksOf(cgroup.dir, cgroup.version === 2 ? 'cgroup.threads' : 'tasks')) {
      if (!ownTasks.has(tid) && (spun(tid) || isRunnableStat(statOf(tid)))) runnable++
    }
    return runnable
  } catch {
    return undefined
  }
}

// --- internal ---

function limitingCgroup(roots: SystemRoots): { dir: string; cpus: number; version: 1 | 2 } | undefined {
  const membershipText = readIfThere(join(roots.proc, 'self/cgroup'))
  const mountsText = readIfThere(join(roots.proc, 'self/mountinfo'))
  if (membershipText === undefined || mountsText === undefined) return undefined
  const membership = parseCgroupMembership(membershipText)
  const mounts = parseCgroupMounts(mountsText)
  const v2 = mounts.find((m) => m.version === 2)
  if (membership.unified !== undefined && v2) {
    for (const path of cgroupAncestry(membership.unified)) {
      const dir = cgroupDirectory(v2, path)
      const text = dir === undefined ? undefined : readIfThere(join(dir, 'cpu.max'))
      const cpus = text === undefined ? null : cpusOfCpuMax(text)
      if (dir !== undefined && cpus !== null) return { dir, cpus, version: 2 }
    }
  }
  const v1 = mounts.find((m) => m.version === 1 && m.controllers.includes('cpu'))
  const path = membership.controllers.cpu
  if (v1 && path !== undefined) {
    for (const ancestor of cgroupAncestry(path)) {
      const dir = cgroupDirectory(v1, ancestor)
      if (dir === undefined) continue
      const quota = readIfThere(join(dir, 'cpu.cfs_quota_us'))
      const period = readIfThere(join(dir, 'cpu.cfs_period_us'))
      const cpus = quota === undefined || period === undefined ? null : cpusOfCfsQuota(quota, period)
      if (cpus !== null) return { dir, cpus, version: 1 }
    }
  }
  return undefined
}

/** The task ids of a cgroup and every cgroup below it. */
function tasksOf(dir: string, file: string): string[] {
  const tasks: string[] = []
  const pending = [dir]
  while (pending.length > 0 && tasks.length < MAX_TASKS) {
    const current = pending.pop() as string
    for (const tid of (readIfThere(join(current, file)) ?? '').split('\n')) if (/^\d+$/.test(tid)) tasks.push(tid)
    for (const entry of readdirSync(current, { withFileTypes: true })) if (entry.isDirectory()) pending.push(join(current, entry.name))
  }
  return tasks.slice(0, MAX_TASKS)
}

/** The quota periods and throttled periods so far of the cgroup that limits the CPUs (its `cpu.stat`); undefined elsewhere or unreadable. */
export function readThrottling(scope: LoadScope): Throttling | undefined {
  if (scope.cgroup === undefined) return undefined
  return throttlingOfCpuStat(readIfThere(join(scope.cgroup.dir, 'cpu.stat')) ?? '')
}

/**
 * The run's own processes: walked down from it by each thread's `children` file where the kernel
 * has them (a few reads, however busy the machine), else from every process's parent in /proc.
 */
function ownProcesses(own: OwnRun, roots: SystemRoots): Set<number> {
  const children = (pid: number): number[] => {
    let tids: string[]
    try {
      tids = readdirSync(join(roots.proc, String(pid), 'task'))
    } catch {
      // Ended since it was listed.
      return []
    }
    // A thread that ended since has no file: it starts no more children.
    return tids.flatMap((tid) => parseChildren(readIfThere(join(roots.proc, String(pid), 'task', tid, 'children')) ?? ''))
  }
  // The run's main thread lasts as long as the run: its file is there exactly when the kernel keeps them.
  if (existsSync(join(roots.proc, String(own.pid), 'task', String(own.pid), 'children'))) return processTree(own.pid, children, own.stress)
  const parents = new Map<number, number>()
  for (const name of readdirSync(roots.proc)) {
    if (!/^\d+$/.test(name)) continue
    const ppid = parentOfStat(readIfThere(join(roots.proc, name, 'stat')) ?? '')
    if (ppid !== undefined) parents.set(Number(name), ppid)
  }
  return processTree(own.pid, childrenFromParents(parents), own.stress)
}

/** Every task (thread) of these processes. */
function tasksOfProcesses(pids: ReadonlySet<number>, roots: SystemRoots): Set<string> {
  const tasks = new Set<string>()
  for (const pid of pids) {
    let names: string[]
    try {
      names = readdirSync(join(roots.proc, String(pid), 'task'))
    } catch {
      // Ended since it was listed.
      continue
    }
    for (const tid of names) if (/^\d+$/.test(tid)) tasks.add(tid)
  }
  return tasks
}

/** A file's text, or undefined when it is not there (or cannot be read: a task that just ended). */
function readIfThere(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return undefined
  }
}
