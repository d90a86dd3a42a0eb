/**
 * Load per CPU, as the kernel's files tell it (docs/contracts.md §13.5): the number of tasks ready to
 * run (running or waiting for a CPU) per CPU available to the run, those of the run itself (its
 * process and every process below it, bar the ones it spins on purpose) left out: the load it met,
 * not the load it made, which a proof of the same tests makes again. Where a cgroup limits the CPUs
 * (a container, a CI job), both come from that cgroup: `os.loadavg()` and `os.cpus()` read the host,
 * whose other tenants' load and CPUs a limited container never gets. Pure: the texts of the files in,
 * numbers out; src/artifacts/cpu-load-read.ts reads them.
 */

/** Where a run's load is counted: in the cgroup that limits its CPUs, system-wide, or from the load average where /proc is absent. */
export type LoadSource = 'cgroup' | 'proc' | 'loadavg'

/** The cgroup a process is in, per hierarchy (`/proc/self/cgroup`). */
export interface CgroupMembership {
  /** cgroup v2 (the `0::` line), the path inside the unified hierarchy. */
  unified?: string
  /** cgroup v1: each controller's path (`cpu` from `4:cpu,cpuacct:/docker/ab`). */
  controllers: Record<string, string>
}

/** `/proc/self/cgroup`: `hierarchy-id:controllers:path` per line. */
export function parseCgroupMembership(text: string): CgroupMembership {
  const membership: CgroupMembership = { controllers: {} }
  for (const line of text.split('\n')) {
    const match = /^(\d+):([^:]*):(.*)$/.exec(line.trim())
    if (!match) continue
    const [, id, controllers = '', path = '/'] = match
    if (id === '0' && controllers === '') membership.unified = path
    else for (const controller of controllers.split(',')) if (controller !== '') membership.controllers[controller] = path
  }
  return membership
}

/** A cgroup file system mounted here: cgroup v2, or v1 with its controllers. */
export interface CgroupMount {
  version: 1 | 2
  /** Where it is mounted (`/sys/fs/cgroup/cpu`). */
  mountPoint: string
  /** The cgroup path the mount shows at its top (`/` unless a namespace or bind mount says otherwise). */
  root: string
  /** v1: the controllers of this hierarchy (`cpu`, `cpuacct`). */
  controllers: string[]
}

/**
 * `/proc/self/mountinfo`: the cgroup mounts. Fields: id, parent, major:minor, root, mount point,
 * options, optional fields, `-`, file system type, source, super options (v1's controllers).
 */
export function parseCgroupMounts(text: string): CgroupMount[] {
  const mounts: CgroupMount[] = []
  for (const line of text.split('\n')) {
    const [before, after] = line.split(' - ')
    if (before === undefined || after === undefined) continue
    const fields = before.split(' ')
    const [type, , superOptions = ''] = after.split(' ')
    const root = unescapeMountPath(fields[3] ?? '/')
    const mountPoint = unescapeMountPath(fields[4] ?? '')
    if (type === 'cgroup2') mounts.push({ version: 2, mountPoint, root, controllers: [] })
    else if (type === 'cgroup') mounts.push({ version: 1, mountPoint, root, controllers: superOptions.split(',').filter((o) => o === 'cpu' || o === 'cpuacct' || o === 'cpuset') })
  }
  return mounts
}

/** Where a cgroup path is in a mount, or undefined when the mount does not show it (a path outside its root). */
export function cgroupDirectory(mount: CgroupMount, path: string): string | undefined {
  const root = mount.root.replace(/\/+$/, '')
  if (root !== '' && path !== root && !path.startsWith(`${root}/`)) return undefined
  const inside = path.slice(root.length).replace(/^\/+/, '')
  return inside === '' ? mount.mountPoint : `${mount.mountPoint}/${inside}`
}

/** The cgroup path and its ancestors, nearest first: a limit may be set on any of them (`/a/b` → `/a/b`, `/a`, `/`). */
export function cgroupAncestry(path: string): string[] {
  const parts = path.split('/').filter((p) => p !== '')
  const paths: string[] = []
  for (let i = parts.length; i >= 0; i--) paths.push(`/${parts.slice(0, i).join('/')}`)
  return paths
}

/** cgroup v2 `cpu.max`: `<quota> <period>` in microseconds, `max` for none. CPUs allowed, or null without a limit. */
export function cpusOfCpuMax(text: string): number | null {
  const [quota, period = '100000'] = text.trim().split(/\s+/)
  if (quota === undefined || quota === 'max') return null
  return cpusOfQuota(Number(quota), Number(period))
}

/** cgroup v1 `cpu.cfs_quota_us` and `cpu.cfs_period_us`: `-1` is no limit. */
export function cpusOfCfsQuota(quotaText: string, periodText: string): number | null {
  return cpusOfQuota(Number(quotaText.trim()), Number(periodText.trim()))
}

/**
 * Tasks ready to run, system-wide, from `/proc/loadavg` (`0.52 0.58 0.59 3/812 12345`): the fourth
 * field's numerator counts the tasks running or runnable at the moment of reading, the reader
 * itself among them.
 */
export function runnableOfLoadavg(text: string): number | undefined {
  const field = text.trim().split(/\s+/)[3]
  const running = field === undefined ? Number.NaN : Number(field.split('/')[0])
  return Number.isInteger(running) && running >= 0 ? running : undefined
}

/**
 * The fields of a `/proc/<pid>/stat` after the command name, the state first (proc(5): fields 3 on),
 * or undefined when the text is not one. The name is in parentheses and may itself hold spaces and
 * parentheses: the fields follow its last ')'.
 */
export function fieldsOfStat(text: string): string[] | undefined {
  const end = text.lastIndexOf(')')
  return end >= 0 ? text.slice(end + 1).trim().split(/\s+/) : undefined
}

/**
 * Whether a task is ready to run, from its `/proc/<tid>/stat`: its state is R. Read without
 * fieldsOfStat's split: the load sampler asks it of every task of the run at each sample.
 */
export function isRunnableStat(text: string): boolean {
  const end = text.lastIndexOf(')')
  return end >= 0 && text.slice(end + 1).trimStart().startsWith('R')
}

/** The parent's pid in a `/proc/<pid>/stat` (the field after the state), or undefined when the text is not one. */
export function parentOfStat(text: string): number | undefined {
  const ppid = Number(fieldsOfStat(text)?.[1])
  return Number.isInteger(ppid) ? ppid : undefined
}

/** Whether a `/proc/<pid>/stat` is of a task that has not ended (hasEnded); false for text that is not a stat (a task gone since it was listed). */
export function isLiveStat(text: string): boolean {
  const state = stateOfStat(text)
  return state !== undefined && !hasEnded(state)
}

/** Whether a task in this state (stateOfStat) has ended: Z (zombie) or X (dead, Linux's state while it is being removed). */
export function hasEnded(state: string): boolean {
  return state === 'Z' || state === 'X'
}

/** The state letter of a `/proc/<pid>/stat` (R running, S sleeping, Z zombie, …), or undefined when the text is not one. */
export function stateOfStat(text: string): string | undefined {
  return fieldsOfStat(text)?.[0]
}

/**
 * When the process started, in clock ticks since boot (`starttime`, the 22nd field of a
 * `/proc/<pid>/stat`), as written there; undefined when the text is not one. Two processes that
 * share a pid one after the other (a run killed without removing its marker, its pid given again)
 * differ in it.
 */
export function startOfStat(text: string): string | undefined {
  const start = fieldsOfStat(text)?.[19]
  return start !== undefined && /^\d+$/.test(start) ? start : undefined
}

/**
 * The run's own processes: `root` and every process below it — except the subtrees of `stress`
 * (processes the run spins on purpose, which are load it means to meet).
 */
export function processTree(root: number, childrenOf: (pid: number) => readonly number[], stress: ReadonlySet<number> = new Set()): Set<number> {
  const tree = new Set<number>()
  const pending = [root]
  while (pending.length > 0) {
    const pid = pending.pop() as number
    if (tree.has(pid) || stress.has(pid)) continue
    tree.add(pid)
    pending.push(...childrenOf(pid))
  }
  return tree
}

/** Each process's children, from every process's parent. */
export function childrenFromParents(parents: ReadonlyMap<number, number>): (pid: number) => readonly number[] {
  const children = new Map<number, number[]>()
  for (const [pid, ppid] of parents) children.set(ppid, [...(children.get(ppid) ?? []), pid])
  return (pid) => children.get(pid) ?? []
}

/** A `/proc/<pid>/task/<tid>/children`: the pids of the children that thread started. */
export function parseChildren(text: string): number[] {
  return text.split(/\s+/).filter((t) => /^\d+$/.test(t)).map(Number)
}

/** A cgroup's quota periods so far, and those in which it was throttled (its `cpu.stat`, v2 and v1 alike). */
export interface Throttling {
  periods: number
  throttled: number
}

/** `cpu.stat`'s `nr_periods` and `nr_throttled`, or undefined when the text has not both (no quota: no periods). */
export function throttlingOfCpuStat(text: string): Throttling | undefined {
  const field = (name: string): number | undefined => {
    const value = new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1]
    return value === undefined ? undefined : Number(value)
  }
  const [periods, throttled] = [field('nr_periods'), field('nr_throttled')]
  return periods === undefined || throttled === undefined ? undefined : { periods, throttled }
}

/**
 * The share of the quota periods between two readings in which the cgroup was throttled (its tasks
 * wanted more CPU than its quota gave), two decimals; null when no period elapsed or a reading is missing.
 */
export function throttledShare(before: Throttling | undefined, after: Throttling | undefined): number | null {
  if (!before || !after) return null
  const periods = after.periods - before.periods
  const throttled = after.throttled - before.throttled
  if (!(periods > 0) || throttled < 0) return null
  return Math.round((Math.min(throttled, periods) / periods) * 100) / 100
}

/** Load per CPU written to two decimals: what the files record, and what comparisons read. */
export function loadPerCpu(samples: readonly number[], cpus: number): number | null {
  if (samples.length === 0 || !(cpus > 0)) return null
  const mean = samples.reduce((sum, s) => sum + s, 0) / samples.length
  return Math.round((mean / cpus) * 100) / 100
}

// --- internal ---

function cpusOfQuota(quota: number, period: number): number | null {
  if (!Number.isFinite(quota) || !Number.isFinite(period) || quota <= 0 || period <= 0) return null
  return Math.round((quota / period) * 100) / 100
}

/** mountinfo escapes a space, tab, newline and backslash in paths as octal (`\040`). */
function unescapeMountPath(path: string): string {
  return path.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)))
}
