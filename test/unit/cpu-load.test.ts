import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { findLoadScope, readThrottling, sampleRunnable } from '../../src/artifacts/cpu-load-read.js'
import {
  cgroupAncestry,
  childrenFromParents,
  cgroupDirectory,
  cpusOfCfsQuota,
  cpusOfCpuMax,
  isLiveStat,
  isRunnableStat,
  loadPerCpu,
  parseCgroupMembership,
  parentOfStat,
  stateOfStat,
  parseCgroupMounts,
  parseChildren,
  processTree,
  runnableOfLoadavg,
  startOfStat,
  throttledShare,
  throttlingOfCpuStat,
} from '../../src/core/cpu-load.js'
import { tempDir } from '../utils.js'

// Texts as the kernel writes them (proc(5), cgroups(7), Documentation/admin-guide/cgroup-v2.rst).
const MOUNTINFO_V1 = [
  '30 24 0:26 / /sys/fs/cgroup ro,nosuid,nodev,noexec shared:9 - tmpfs tmpfs ro,mode=755',
  '34 30 0:30 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid,nodev,noexec,relatime shared:15 - cgroup cgroup rw,cpu,cpuacct',
  '35 30 0:31 / /sys/fs/cgroup/memory rw,nosuid,nodev,noexec,relatime shared:16 - cgroup cgroup rw,memory',
].join('\n')
const MOUNTINFO_V2 = '25 30 0:23 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot'

describe('the kernel texts', () => {
  it.each([
    ['v2 only', '0::/user.slice/session-1.scope\n', { unified: '/user.slice/session-1.scope', controllers: {} }],
    ['v1 with joined controllers', '4:cpu,cpuacct:/docker/ab12\n3:memory:/docker/ab12\n0::/\n', { unified: '/', controllers: { cpu: '/docker/ab12', cpuacct: '/docker/ab12', memory: '/docker/ab12' } }],
    ['a named hierarchy is no controller', '9:name=systemd:/\n1:cpu:/\n', { controllers: { 'name=systemd': '/', cpu: '/' } }],
  ])('/proc/self/cgroup, %s', (_case, text, expected) => {
    expect(parseCgroupMembership(text)).toEqual(expected)
  })

  it('reads the cgroup mounts of mountinfo, v1 with its cpu controllers and v2', () => {
    expect(parseCgroupMounts(MOUNTINFO_V1)).toEqual([
      { version: 1, mountPoint: '/sys/fs/cgroup/cpu,cpuacct', root: '/', controllers: ['cpu', 'cpuacct'] },
      { version: 1, mountPoint: '/sys/fs/cgroup/memory', root: '/', controllers: [] },
    ])
    expect(parseCgroupMounts(MOUNTINFO_V2)).toEqual([{ version: 2, mountPoint: '/sys/fs/cgroup', root: '/', controllers: [] }])
    // mountinfo writes a space in a path as \040.
    expect(parseCgroupMounts('1 2 0:1 / /mnt/my\\040cg rw - cgroup2 cgroup2 rw')[0]?.mountPoint).toBe('/mnt/my cg')
  })

  it.each([
    [{ root: '/' }, '/docker/ab', '/sys/fs/cgroup/docker/ab'],
    [{ root: '/' }, '/', '/sys/fs/cgroup'],
    // A bind mount of /docker/ab shows that cgroup at its top.
    [{ root: '/docker/ab' }, '/docker/ab/child', '/sys/fs/cgroup/child'],
    [{ root: '/docker/ab' }, '/other', undefined],
  ])('a cgroup in its mount: %o, %s → %s', (mount, path, dir) => {
    expect(cgroupDirectory({ version: 2, mountPoint: '/sys/fs/cgroup', controllers: [], ...mount }, path)).toBe(dir)
  })

  it('walks a cgroup path up to the root, nearest first', () => {
    expect(cgroupAncestry('/a/b')).toEqual(['/a/b', '/a', '/'])
    expect(cgroupAncestry('/')).toEqual(['/'])
  })

  it.each([
    // cpu.max: quota and period in µs; 150000/100000 = 1.5 CPUs.
    ['cpu.max', () => cpusOfCpuMax('150000 100000\n'), 1.5],
    ['cpu.max without a limit', () => cpusOfCpuMax('max 100000\n'), null],
    ['cpu.max, period left out (default 100000)', () => cpusOfCpuMax('200000'), 2],
    ['cfs quota 50000 of 100000', () => cpusOfCfsQuota('50000\n', '100000\n'), 0.5],
    ['cfs quota -1: no limit', () => cpusOfCfsQuota('-1\n', '100000\n'), null],
  ])('%s', (_case, read, cpus) => {
    expect(read()).toBe(cpus)
  })

  it.each([
    ['0.52 0.58 0.59 3/812 12345\n', 3],
    ['6.19 8.55 10.21 17/269 15083', 17],
    ['garbage', undefined],
  ])('/proc/loadavg %j: %s tasks ready to run', (text, running) => {
    expect(runnableOfLoadavg(text)).toBe(running)
  })

  it.each([
    ['1234 (node) R 1 1234', true],
    ['1234 (node) S 1 1234', false],
    // The command name may hold spaces and parentheses: the state follows the last ')'.
    ['1234 (my (odd) R name) S 1 1234', false],
    ['1234 (Web Content) R 1', true],
  ])('/proc/<tid>/stat %j is runnable: %s', (text, runnable) => {
    expect(isRunnableStat(text)).toBe(runnable)
  })

  it.each([
    // (3 + 5 + 4) / 3 = 4 tasks on 2 CPUs = 2 per CPU.
    [[3, 5, 4], 2, 2],
    // 7 / 3 = 2.333… on 1.5 CPUs = 1.5555… → 1.56.
    [[2, 2, 3], 1.5, 1.56],
    [[], 2, null],
  ])('load per CPU of samples %j on %s CPU(s): %s', (samples, cpus, load) => {
    expect(loadPerCpu(samples, cpus)).toBe(load)
  })
})

/** A copy of /proc and /sys/fs/cgroup's layout, where the files say what a test needs. */
function fakeSystem(files: Record<string, string>): { proc: string; at: (path: string) => string } {
  const top = tempDir()
  const at = (path: string): string => join(top, path)
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(at(path), '..'), { recursive: true })
    writeFileSync(at(path), text.replaceAll('<top>', top))
  }
  return { proc: at('proc'), at }
}

describe('where the load is counted', () => {
  // Processes 11, 12 and 14 spin (R), 13 sleeps. The run is 20 (threads 20 and 22, both running),
  // its worker 21 (running), and 23, a process it spins on purpose: load it met, not made.
  const tasks = {
    'proc/11/stat': '11 (node) R 1',
    'proc/11/task/11/stat': '11 (node) R 1',
    'proc/12/stat': '12 (node) R 1',
    'proc/12/task/12/stat': '12 (node) R 1',
    'proc/13/stat': '13 (node) S 1',
    'proc/13/task/13/stat': '13 (node) S 1',
    'proc/14/stat': '14 (sh) R 1',
    'proc/14/task/14/stat': '14 (sh) R 1',
    'proc/20/stat': '20 (node) R 1',
    'proc/20/task/20/stat': '20 (node) R 1',
    'proc/20/task/22/stat': '22 (node) R 1',
    'proc/22/stat': '22 (node) R 1',
    'proc/21/stat': '21 (node) R 20',
    'proc/21/task/21/stat': '21 (node) R 20',
    'proc/23/stat': '23 (node) R 20',
    'proc/23/task/23/stat': '23 (node) R 20',
  }
  const own = { pid: 20, stress: new Set([23]) }

  it('a cgroup v2 whose parent limits the CPUs: its limit, and the tasks of it and its descendants that are not the run\'s', () => {
    const system = fakeSystem({
      'proc/self/cgroup': '0::/ci/job\n',
      'proc/self/mountinfo': '25 30 0:23 / <top>/cg rw - cgroup2 cgroup2 rw',
      'proc/loadavg': '9.00 9.00 9.00 40/900 1',
      'cg/ci/cpu.max': '200000 100000\n',
      'cg/ci/job/cpu.max': 'max 100000\n',
      'cg/ci/cgroup.threads': '11\n12\n',
      'cg/ci/job/cgroup.threads': '13\n20\n22\n',
      'cg/ci/job/step/cgroup.threads': '14\n21\n23\n',
      ...tasks,
    })
    const scope = findLoadScope(system, 8)
    expect(scope).toEqual({ source: 'cgroup', cpus: 2, cgroup: { dir: system.at('cg/ci'), version: 2 } })
    // Ready to run: 11, 12, 14 and the spun 23; the run's own 20, 22 and 21 are left out. Never the host's 40.
    expect(sampleRunnable(scope, own, system)).toBe(4)
  })

  it('a cgroup v1 cpu quota, at most the machine\'s CPUs', () => {
    const system = fakeSystem({
      'proc/self/cgroup': '4:cpu,cpuacct:/docker/ab\n0::/\n',
      'proc/self/mountinfo': '34 30 0:30 / <top>/cpu rw - cgroup cgroup rw,cpu,cpuacct',
      'cpu/docker/ab/cpu.cfs_quota_us': '400000\n',
      'cpu/docker/ab/cpu.cfs_period_us': '100000\n',
      'cpu/docker/ab/tasks': '11\n13\n20\n',
      ...tasks,
    })
    const scope = findLoadScope(system, 2)
    // 4 CPUs of quota on a machine of 2: 2.
    expect(scope).toEqual({ source: 'cgroup', cpus: 2, cgroup: { dir: system.at('cpu/docker/ab'), version: 1 } })
    // 11 runs, 13 sleeps, 20 is the run's own.
    expect(sampleRunnable(scope, own, system)).toBe(1)
  })

  it('no limit: the whole system, from /proc/loadavg, less the run\'s own tasks ready to run', () => {
    const system = fakeSystem({
      'proc/self/cgroup': '1:cpu:/\n0::/\n',
      'proc/self/mountinfo': '34 30 0:30 / <top>/cpu rw - cgroup cgroup rw,cpu',
      'cpu/cpu.cfs_quota_us': '-1\n',
      'cpu/cpu.cfs_period_us': '100000\n',
      'proc/loadavg': '6.19 8.55 10.21 7/207 14326\n',
      ...tasks,
    })
    const scope = findLoadScope(system, 2)
    expect(scope).toEqual({ source: 'proc', cpus: 2 })
    // 7 running system-wide, 3 of them the run's (20, 22, 21): 4.
    expect(sampleRunnable(scope, own, system)).toBe(4)
  })

  it.each([
    // 23 is spun on purpose: ready to run or not at this instant (S: still starting, or between time
    // slices), it is counted, as it is the rest of the time; once ended (Z) it is not.
    ['R', 4, 4],
    ['S', 4, 4],
    ['Z', 3, 3],
  ])('a process the run spins, in state %s, counts as load until it has ended: %i in its cgroup, %i from /proc/loadavg', (state, inCgroup, inProc) => {
    const spinner = { 'proc/23/stat': `23 (node) ${state} 20`, 'proc/23/task/23/stat': `23 (node) ${state} 20` }
    const cgroup = fakeSystem({
      'proc/self/cgroup': '0::/ci\n',
      'proc/self/mountinfo': '25 30 0:23 / <top>/cg rw - cgroup2 cgroup2 rw',
      'cg/ci/cpu.max': '200000 100000\n',
      'cg/ci/cgroup.threads': '11\n12\n13\n14\n20\n21\n22\n23\n',
      ...tasks,
      ...spinner,
    })
    expect(sampleRunnable(findLoadScope(cgroup, 8), own, cgroup)).toBe(inCgroup)
    // System-wide: /proc/loadavg's 7 running hold 23 only while it is R (11, 12, 14, the run's 20, 22, 21, and 23).
    const proc = fakeSystem({
      'proc/self/cgroup': '1:cpu:/\n0::/\n',
      'proc/self/mountinfo': '34 30 0:30 / <top>/cpu rw - cgroup cgroup rw,cpu',
      'cpu/cpu.cfs_quota_us': '-1\n',
      'cpu/cpu.cfs_period_us': '100000\n',
      'proc/loadavg': `6.19 8.55 10.21 ${state === 'R' ? 7 : 6}/207 14326\n`,
      ...tasks,
      ...spinner,
    })
    expect(sampleRunnable(findLoadScope(proc, 2), own, proc)).toBe(inProc)
  })

  it.each([
    ['1234 (node) R 1 1234', true],
    ['1234 (node) S 1 1234', true],
    ['1234 (node) D 1 1234', true],
    ['1234 (node) Z 1 1234', false],
    ['1234 (node) X 1 1234', false],
    ['', false],
  ])('%j is of a live task: %s', (text, live) => {
    expect(isLiveStat(text)).toBe(live)
  })

  it('no /proc (macOS, Windows): the load average', () => {
    const system = fakeSystem({ 'elsewhere/x': '' })
    expect(findLoadScope({ proc: system.at('proc') }, 4)).toEqual({ source: 'loadavg', cpus: 4 })
  })

  it.each([
    // 1 → 20 → 21, 20 → 23 (spun on purpose) → 24: the run 20 is 20 and 21.
    [20, [23], [20, 21]],
    [20, [], [20, 21, 23, 24]],
    [1, [20], [1, 30]],
  ])('the process tree of %i without the subtrees of %j: %j', (root, stress, tree) => {
    const parents = new Map([[20, 1], [21, 20], [23, 20], [24, 23], [30, 1]])
    expect([...processTree(root, childrenFromParents(parents), new Set(stress))].sort((a, b) => a - b)).toEqual(tree)
  })

  it.each([
    ['21 23 ', [21, 23]],
    ['', []],
    ['7\n', [7]],
  ])('the children in %j: %j', (text, pids) => {
    expect(parseChildren(text)).toEqual(pids)
  })

  it('walks the run down by its threads\' children files where the kernel has them, whatever the parents say', () => {
    // The same system, each stat naming parent 1: only the children files say 21 and 23 are 20's
    // (21 started by its thread 22). Left out: 20, 22 and 21; 23 is spun on purpose and counts.
    const orphaned = Object.fromEntries(Object.entries(tasks).map(([path, text]) => [path, text.replace(/ 20$/, ' 1')]))
    const system = fakeSystem({
      'proc/self/cgroup': '0::/ci\n',
      'proc/self/mountinfo': '25 30 0:23 / <top>/cg rw - cgroup2 cgroup2 rw',
      'cg/ci/cpu.max': '100000 100000\n',
      'cg/ci/cgroup.threads': '11\n12\n13\n14\n20\n21\n22\n23\n',
      ...orphaned,
      'proc/20/task/20/children': '23 ',
      'proc/20/task/22/children': '21 ',
      'proc/21/task/21/children': '',
      'proc/23/task/23/children': '',
    })
    expect(sampleRunnable(findLoadScope(system, 2), own, system)).toBe(4)
  })

  it.each([
    ['1234 (node) R 1 1234', 1],
    ['99 (a (b) c) S 42 99 0', 42],
    ['nonsense', undefined],
  ])('the parent in %j: %s', (text, ppid) => {
    expect(parentOfStat(text)).toBe(ppid)
  })

  it.each([
    ['1234 (node) R 1 1234', 'R'],
    // A zombie's name may hold spaces and parentheses too: the state follows the last ')'.
    ['99 (a (b) c) Z 42 99 0', 'Z'],
    ['nonsense', undefined],
  ])('the state in %j: %s', (text, state) => {
    expect(stateOfStat(text)).toBe(state)
  })

  it.each([
    // `cat /proc/self/stat` on this machine (Linux 6, Debian): starttime, the 22nd field, is 1363805.
    ['22144 (cat) R 22142 22142 24895 0 -1 4194304 99 0 0 0 0 0 0 0 20 0 1 0 1363805 3133440 412 18446744073709551615', '1363805'],
    // A name with spaces and parentheses: fields are counted from the last ')'.
    ['7 (a) b (c) S 1 7 7 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 42 0 0', '42'],
    ['7 (short) S 1 7', undefined],
    ['nonsense', undefined],
  ])('the start in %j: %s', (text, start) => {
    expect(startOfStat(text)).toBe(start)
  })
})

describe('throttling of the cgroup that limits the CPUs (cpu.stat)', () => {
  it.each([
    // cgroup v2's cpu.stat (kernel docs, Documentation/admin-guide/cgroup-v2.rst, "cpu.stat").
    ['usage_usec 5000000\nuser_usec 4000000\nsystem_usec 1000000\nnr_periods 120\nnr_throttled 30\nthrottled_usec 900000\n', { periods: 120, throttled: 30 }],
    // cgroup v1's, as `cat /sys/fs/cgroup/cpu/cpu.stat` prints it on this machine (no quota: no periods yet).
    ['nr_periods 0\nnr_throttled 0\nthrottled_time 0\nnr_bursts 0\nburst_time 0\n', { periods: 0, throttled: 0 }],
    // v2 without the cpu controller enabled: usage only.
    ['usage_usec 5000000\nuser_usec 4000000\nsystem_usec 1000000\n', undefined],
  ])('%j → %j', (text, throttling) => {
    expect(throttlingOfCpuStat(text)).toEqual(throttling)
  })

  it.each([
    // 30 of 120 periods throttled between the readings: 0.25.
    [{ periods: 10, throttled: 5 }, { periods: 130, throttled: 35 }, 0.25],
    // 1 of 3: 0.333… → 0.33.
    [{ periods: 0, throttled: 0 }, { periods: 3, throttled: 1 }, 0.33],
    [{ periods: 7, throttled: 2 }, { periods: 7, throttled: 2 }, null],
    [undefined, { periods: 7, throttled: 2 }, null],
  ])('from %j to %j: %s', (before, after, share) => {
    expect(throttledShare(before, after)).toBe(share)
  })

  it('reads the cpu.stat of the cgroup that sets the limit, and nothing without one', () => {
    const system = fakeSystem({
      'proc/self/cgroup': '0::/ci/job\n',
      'proc/self/mountinfo': '25 30 0:23 / <top>/cg rw - cgroup2 cgroup2 rw',
      'cg/ci/cpu.max': '200000 100000\n',
      'cg/ci/cpu.stat': 'usage_usec 10\nnr_periods 40\nnr_throttled 4\nthrottled_usec 7\n',
      'cg/ci/job/cpu.stat': 'usage_usec 10\nnr_periods 0\nnr_throttled 0\nthrottled_usec 0\n',
    })
    expect(readThrottling(findLoadScope(system, 8))).toEqual({ periods: 40, throttled: 4 })
    expect(readThrottling({ source: 'proc', cpus: 2 })).toBeUndefined()
  })
})
