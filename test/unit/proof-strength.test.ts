import { spawn } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { MADE_ROOT, readOtherRunMarkers, removeRunMarker, runMarkersDir, writeRunMarker } from '../../src/artifacts/run-marker.js'
import { concurrentRuns, describeWeakness, loadProcsToMatch, type RunStress, weakerConditions } from '../../src/core/proof-strength.js'
import { judgeProofStrength } from '../../src/pipeline/proof-conditions.js'
import { RunConditionsSampler } from '../../src/pipeline/run-conditions.js'
import { tempDir } from '../utils.js'

const MEASURED: RunStress = { load_per_cpu: 2.4, cpus: 2, workers: 3, concurrent_runs: 2, pool: 'forks', isolate: true }

describe('weakerConditions: a proof under less than its measurement (docs/contracts.md §13.5)', () => {
  it.each([
    ['the same conditions', MEASURED, []],
    ['more of everything', { ...MEASURED, load_per_cpu: 5, workers: 4, concurrent_runs: 3 }, []],
    ['fewer workers', { ...MEASURED, workers: 1 }, [{ condition: 'workers', measured: 3, proof: 1 }]],
    ['fewer concurrent runs', { ...MEASURED, concurrent_runs: 1 }, [{ condition: 'concurrent_runs', measured: 2, proof: 1 }]],
    ['another pool', { ...MEASURED, pool: 'threads' }, [{ condition: 'pool', measured: 'forks', proof: 'threads' }]],
    ['isolation off', { ...MEASURED, isolate: false }, [{ condition: 'isolate', measured: true, proof: false }]],
    // 2.40 − 1.90 = 0.50: lower by exactly 0.5 is not "more than 0.5" (decided in hundredths, not by 2.4 − 1.9 = 0.4999…).
    ['load lower by exactly 0.5', { ...MEASURED, load_per_cpu: 1.9 }, []],
    ['load lower by 0.51', { ...MEASURED, load_per_cpu: 1.89 }, [{ condition: 'load_per_cpu', measured: 2.4, proof: 1.89 }]],
    ['nothing known of the proof', {}, []],
    [
      'all at once, in one order',
      { load_per_cpu: 0.3, cpus: 2, workers: 1, concurrent_runs: 1, pool: 'threads', isolate: false },
      [
        { condition: 'workers', measured: 3, proof: 1 },
        { condition: 'concurrent_runs', measured: 2, proof: 1 },
        { condition: 'pool', measured: 'forks', proof: 'threads' },
        { condition: 'isolate', measured: true, proof: false },
        { condition: 'load_per_cpu', measured: 2.4, proof: 0.3 },
      ],
    ],
  ])('%s', (_case, proof, weaker) => {
    expect(weakerConditions(MEASURED, proof)).toEqual(weaker)
  })

  it('compares nothing a measurement did not record (policy.json written before conditions were)', () => {
    expect(weakerConditions(undefined, { load_per_cpu: 0 })).toEqual([])
    expect(weakerConditions({ workers: 2 }, { workers: 1, load_per_cpu: 0 })).toEqual([{ condition: 'workers', measured: 2, proof: 1 }])
  })
})

describe('loadProcsToMatch: spinning processes that bring the proof up to the measured load', () => {
  it.each([
    // (2.40 − 0.30) × 2 CPUs = 4.2 → 5 more.
    [2.4, 0.3, 2, 0, 5],
    // Already spinning 3: (4.63 − 2.10) × 1 = 2.53 → 3 more, 6 in all.
    [4.63, 2.1, 1, 3, 6],
    // (1.00 − 0.50) × 1.5 = 0.75 → 1: the product in ten-thousandths, 50 × 150 = 7500 → ceil 1.
    [1, 0.5, 1.5, 0, 1],
    // Exactly 2.00 × 2 = 4: not 5 (0.1 + 0.2 float noise must not round it up).
    [2.3, 0.3, 2, 0, 4],
    // Never fewer than one more than it had.
    [1, 1, 4, 2, 3],
  ])('measured %s, proof %s on %s CPU(s), spinning %s → %s', (measured, proof, cpus, spinning, procs) => {
    expect(loadProcsToMatch(measured, proof, cpus, spinning)).toBe(procs)
  })

  it('says how to match each weakness, in the flag of the run', () => {
    const flag = (n: number) => `--flaky-load-procs ${n}`
    const proof = { cpus: 2, spinning: 0 }
    expect(describeWeakness({ condition: 'load_per_cpu', measured: 2.4, proof: 0.3 }, proof, flag)).toBe(
      'load 0.30 per CPU, 2.40 when measured: add --flaky-load-procs 5 (5 spinning process(es) on 2 CPU(s))',
    )
    expect(describeWeakness({ condition: 'workers', measured: 3, proof: 1 }, proof, flag)).toBe(
      '1 worker(s) at once, 3 when measured: run as many files at once (the whole selection, and at least 3 workers)',
    )
    expect(describeWeakness({ condition: 'concurrent_runs', measured: 2, proof: 1 }, proof, flag)).toBe('1 flakeproof run(s) of these files at once, 2 when measured: start 2 at once, as the measurement did')
    expect(describeWeakness({ condition: 'pool', measured: 'forks', proof: 'threads' }, proof, flag)).toBe('pool threads, measured in pool forks: run it in forks (--pool forks)')
    // Two Vitest projects' pools joined: no one flag runs them.
    expect(describeWeakness({ condition: 'pool', measured: 'forks+threads', proof: 'forks' }, proof, flag)).toBe('pool forks, measured in pool forks+threads: run it in forks+threads')
  })

  it('says how to keep Jest\'s workers where Jest ran the proof in band (fast files, after a measurement filled its cache)', () => {
    const flag = (n: number) => `--flaky-load-procs ${n}`
    const inBand = { cpus: 2, spinning: 0, workers: 1, pool: 'in-band' }
    const why = 'Jest ran them in its own process (one file, one worker, or files its cache timed as fast): add --workerIdleMemoryLimit=1GB, which keeps its workers'
    expect(describeWeakness({ condition: 'workers', measured: 2, proof: 1 }, inBand, flag)).toBe(
      `1 worker(s) at once, 2 when measured: run as many files at once (the whole selection, and at least 2 workers); ${why}, and --maxWorkers=2`,
    )
    expect(describeWeakness({ condition: 'pool', measured: 'workers', proof: 'in-band' }, inBand, flag)).toBe(`pool in-band, measured in pool workers; ${why}, and --maxWorkers as measured`)
  })
})

describe('judgeProofStrength: per test against its own measurement, and the hardest for the proof', () => {
  const flag = (n: number) => `--flaky-load-procs ${n}`
  const base = { rounds: 1, repeat: 100, conditions: ['base' as const], load_procs: null, shuffle: false, seeds: [], gap_ms: null }

  it('a committed policy whose entries were measured under different loads', () => {
    const measured = { a: { ...base, load_per_cpu: 3, cpus: 2 }, b: { ...base, load_per_cpu: 1.2, cpus: 2 }, c: undefined }
    const strength = judgeProofStrength(measured, { load_per_cpu: 1, cpus: 2, spinning: 0 }, flag)
    // a: 3.00 − 1.00 = 2 > 0.5; b: 1.20 − 1.00 = 0.2 is within; c: not recorded.
    expect(Object.keys(strength.perTest)).toEqual(['a'])
    // (3 − 1) × 2 = 4 spinning processes.
    expect(strength.overall).toEqual([{ condition: 'load_per_cpu', measured: 3, proof: 1, note: 'load 1.00 per CPU, 3.00 when measured: add --flaky-load-procs 4 (4 spinning process(es) on 2 CPU(s))' }])
  })

  it('keeps the hardest measurement of each condition', () => {
    const measured = { a: { ...base, workers: 2 }, b: { ...base, workers: 4 } }
    expect(judgeProofStrength(measured, { workers: 1 }, flag).overall.map((w) => w.measured)).toEqual([4])
  })
})

describe('concurrent runs of the same files', () => {
  it.each([
    [['a', 'b'], [['b', 'c'], ['d']], 2],
    [['a'], [null], 2],
    [null, [['x'], ['y']], 3],
    [['a'], [], 1],
  ])('own %j, others %j → %s', (own, others, n) => {
    expect(concurrentRuns(own, others)).toBe(n)
  })
})

describe('run markers and the sampler', () => {
  const live = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' })
  afterAll(() => {
    live.kill('SIGKILL')
  })

  it('counts the live runs of the same files, ignores and removes those of dead processes', () => {
    const root = tempDir()
    const marker = (pid: number, files: string[] | null) => ({ schema_version: 1 as const, pid, started_at: '2026-12-01T00:00:00.000Z', runner: 'vitest', files })
    writeRunMarker(root, marker(live.pid as number, ['/p/a.test.ts']))
    // A pid no process has (above Linux's pid_max of 2^22): its run was killed without removing its marker.
    const dead = writeRunMarker(root, marker(4_194_400, ['/p/a.test.ts'])).path
    writeRunMarker(root, marker(live.pid as number, ['/p/other.test.ts']))
    const sampler = new RunConditionsSampler({ root, runner: 'vitest', files: ['/p/a.test.ts'], intervalMs: 60_000 })
    sampler.start()
    const sampled = sampler.stop()
    // This run, and the live one of a.test.ts; not the dead one, nor the one of other files.
    expect(sampled.concurrent_runs).toBe(2)
    expect(sampled.load_samples).toBe(2)
    expect(readdirSync(runMarkersDir(root)).map((name) => join(runMarkersDir(root), name))).not.toContain(dead)
    // Its own marker is gone with it.
    expect(readOtherRunMarkers(runMarkersDir(root), undefined).map((m) => m.files?.join()).sort()).toEqual(['/p/a.test.ts', '/p/other.test.ts'])
  })

  it('writes the first files it learns at once and later ones at its next sample, counting them itself meanwhile', () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] })
    try {
      const root = tempDir()
      writeRunMarker(root, { schema_version: 1, pid: live.pid as number, started_at: '2026-12-01T00:00:00.000Z', runner: 'jest', files: ['/p/b.test.ts'] })
      // A Jest run: its files are known one at a time, as each starts.
      const sampler = new RunConditionsSampler({ root, runner: 'jest', intervalMs: 500 })
      sampler.start()
      const own = (): (string[] | null)[] => readOtherRunMarkers(runMarkersDir(root), undefined).filter((m) => m.pid === process.pid).map((m) => m.files)
      expect(own()).toEqual([null])
      sampler.addFiles(['/p/a.test.ts'])
      expect(own()).toEqual([['/p/a.test.ts']])
      sampler.addFiles(['/p/b.test.ts'])
      sampler.addFiles(['/p/c.test.ts'])
      // Not rewritten per file: the marker still says the first.
      expect(own()).toEqual([['/p/a.test.ts']])
      vi.advanceTimersByTime(500)
      expect(own()).toEqual([['/p/a.test.ts', '/p/b.test.ts', '/p/c.test.ts']])
      // The live run of b.test.ts counted from the sample that knew b.test.ts.
      expect(sampler.stop().concurrent_runs).toBe(2)
      expect(own()).toEqual([])
    } finally {
      vi.useRealTimers()
    }
  })

  it('skips an unreadable marker or a marker’s temporary file, and removes it once the pid of its name is gone', () => {
    const root = tempDir()
    const dir = runMarkersDir(root)
    mkdirSync(dir, { recursive: true })
    const dead = 4_194_400
    const names = [
      // Empty markers: a dead pid's (a power loss; the rename reached the disk, the data did not), a live run's.
      `${dead}-0a1b2c3d.json`,
      `${live.pid}-0a1b2c3d.json`,
      // Temporary files of a marker's write (siblingName): a run killed before its rename, a live run's mid-write.
      `.${dead}-0a1b2c3d.json.0123456789ab.tmp`,
      `.${live.pid}-0a1b2c3d.json.0123456789ab.tmp`,
      // Files of no marker's name: not flakeproof's to remove.
      'notes.json',
      '.4194400-0a1b2c3d.json',
    ]
    for (const name of names) writeFileSync(join(dir, name), '')
    expect(readOtherRunMarkers(dir, undefined)).toEqual([])
    expect(readdirSync(dir).sort()).toEqual([`.${dead}-0a1b2c3d.json`, `.${live.pid}-0a1b2c3d.json.0123456789ab.tmp`, `${live.pid}-0a1b2c3d.json`, 'notes.json'].sort())
  })
})

describe.skipIf(process.platform !== 'linux')('a marker whose pid a later process holds (Linux, from /proc/<pid>/stat)', () => {
  const live = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' })
  afterAll(() => {
    live.kill('SIGKILL')
  })
  /** The 22nd field of /proc/<pid>/stat, read here by hand rather than by the code under test. */
  const startOf = (pid: number): string => {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return text.slice(text.lastIndexOf(')') + 2).split(' ')[19] as string
  }

  it('is a killed run\'s, ignored and removed: this very pid in a container numbering from 1, or another live one', () => {
    const root = tempDir()
    const marker = (pid: number, start: string) => ({ schema_version: 1 as const, pid, started_at: '2026-12-01T00:00:00.000Z', runner: 'jest', files: ['/p/a.test.ts'], process_start: start })
    const earlier = (start: string): string => String(Number(start) - 1)
    const running = writeRunMarker(root, marker(live.pid as number, startOf(live.pid as number))).path
    const reusedOwn = writeRunMarker(root, marker(process.pid, earlier(startOf(process.pid)))).path
    const reusedOther = writeRunMarker(root, marker(live.pid as number, earlier(startOf(live.pid as number)))).path
    const sampler = new RunConditionsSampler({ root, runner: 'jest', files: ['/p/a.test.ts'], intervalMs: 60_000 })
    sampler.start()
    const markers = (): string[] => readdirSync(runMarkersDir(root)).filter((name) => name.endsWith('.json')).map((name) => join(runMarkersDir(root), name))
    const own = markers().filter((p) => ![running, reusedOwn, reusedOther].includes(p))
    // This run's own marker carries its start.
    expect(own.map((p) => JSON.parse(readFileSync(p, 'utf8')).process_start)).toEqual([startOf(process.pid)])
    // This run and the live one; neither marker whose process started after it was written.
    expect(sampler.stop().concurrent_runs).toBe(2)
    expect(markers()).toEqual([running])
  })
})

describe('a run leaves the project as it found it', () => {
  it('takes its marker folder and the .flakeproof it made away when they are empty', () => {
    const root = tempDir()
    const sampler = new RunConditionsSampler({ root, runner: 'command', files: ['npm test'], intervalMs: 60_000 })
    sampler.start()
    expect(readdirSync(join(root, '.flakeproof/running')).sort()).toEqual([MADE_ROOT, expect.stringMatching(/^\d+-[0-9a-f]+\.json$/)])
    expect(sampler.stop().concurrent_runs).toBe(1)
    expect(readdirSync(root)).toEqual([])
  })

  // Two runs at once in one project (two test files of this suite did so): the one that made .flakeproof ends first.
  it.each([
    ['the run that made .flakeproof ends first', ['first', 'second']],
    ['the other run ends first', ['second', 'first']],
  ])('takes .flakeproof away when %s', (_, order) => {
    const root = tempDir()
    const marker = { schema_version: 1 as const, pid: process.pid, started_at: '2026-12-01T00:00:00.000Z', runner: 'jest', files: null }
    const runs = { first: writeRunMarker(root, marker).path, second: writeRunMarker(root, marker).path }
    for (const run of order) removeRunMarker(runs[run as keyof typeof runs])
    expect(readdirSync(root)).toEqual([])
  })

  it("keeps a .flakeproof the project had, empty or not, and the run's outputs in it", () => {
    const root = tempDir()
    mkdirSync(join(root, '.flakeproof'))
    const marker = { schema_version: 1 as const, pid: process.pid, started_at: '2026-12-01T00:00:00.000Z', runner: 'jest', files: null }
    removeRunMarker(writeRunMarker(root, marker).path)
    expect(readdirSync(root)).toEqual(['.flakeproof'])
    expect(readdirSync(join(root, '.flakeproof'))).toEqual([])
    // Made by the run, holding what the run wrote there (its default output folder): left as it is.
    const other = tempDir()
    const path = writeRunMarker(other, marker).path
    writeFileSync(join(other, '.flakeproof/rate.json'), '{}')
    removeRunMarker(path)
    expect(readdirSync(join(other, '.flakeproof'))).toEqual(['rate.json'])
  })
})
