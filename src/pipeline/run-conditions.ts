import { findLoadScope, type LoadScope, type OwnRun, readThrottling, sampleRunnable, type SystemRoots } from '../artifacts/cpu-load-read.js'
import { ownProcessStart, readOtherRunMarkers, removeRunMarker, runMarkersDir, writeRunMarker } from '../artifacts/run-marker.js'
import type { LoadSource, Throttling } from '../core/cpu-load.js'
import { loadPerCpu, throttledShare } from '../core/cpu-load.js'
import { concurrentRuns } from '../core/proof-strength.js'
import { spinningProcesses, startLoad } from '../runner/load.js'

/** What the sampler saw of a run it did not create: the machine's load and the other flakeproof runs. */
export interface SampledConditions {
  /** Tasks ready to run per CPU, the mean of the samples (null: none could be read). */
  load_per_cpu: number | null
  cpus: number
  load_source: LoadSource
  load_samples: number
  /** flakeproof runs of the same files at once, this one included, the most seen (null: the markers could not be written). */
  concurrent_runs: number | null
  /** Where a cgroup limits the CPUs: the share of its quota periods in which it was throttled over the run. */
  throttled?: number | null
}

export interface SamplerSettings {
  /** The project root: the shared marker folder is `<root>/.flakeproof/running/`. */
  root: string
  /** `vitest`, `jest`, `command`. */
  runner: string
  /** What the run runs, when known at its start (test files, or the command). */
  files?: readonly string[] | undefined
  /** Time between samples. @default 500 */
  intervalMs?: number
  /** Where the kernel's files are (tests give a copy of their layout). */
  roots?: SystemRoots
}

/**
 * Samples the conditions of a run as it runs (docs/contracts.md §13.5): load per CPU every half
 * second, from the cgroup that limits the CPUs or from the system, the run's own processes left out
 * (its spinning ones counted), and how many flakeproof runs of
 * the same files run at once, from one marker per run in the project's `.flakeproof/running/`. Its
 * own marker is written at start and removed at stop (and at exit, should the run never stop). A
 * file that cannot be read or written costs a sample, never the run.
 */
export class RunConditionsSampler {
  private readonly _settings: SamplerSettings
  private readonly _scope: LoadScope
  private readonly _own: OwnRun
  /** This process's start, in its marker: a later process given the same pid is not this run. */
  private readonly _processStart: { process_start?: string }
  private readonly _samples: number[] = []
  private readonly _startedAt = new Date()
  private _files: string[] | null
  private _marker: string | undefined
  private _markerFailed = false
  /** Files learnt since the marker was last written: written at the next sample (addFiles). */
  private _unwritten = false
  private _concurrent = 1
  private _timer: ReturnType<typeof setInterval> | undefined
  /** The limiting cgroup's quota periods at the start. */
  private _throttling: Throttling | undefined
  private readonly _onExit = (): void => this._removeMarker()

  constructor(settings: SamplerSettings) {
    this._settings = settings
    this._scope = findLoadScope(settings.roots)
    // The processes this run spins (--flaky-load-procs, load rounds) are its children, and load it means to meet.
    this._own = { pid: process.pid, stress: spinningProcesses() }
    const start = ownProcessStart()
    this._processStart = start === undefined ? {} : { process_start: start }
    this._files = settings.files ? [...settings.files] : null
  }

  /** Writes this run's marker, takes the first sample, and samples every `intervalMs` until `stop`. */
  start(): void {
    this._throttling = readThrottling(this._scope)
    this._writeMarker()
    process.on('exit', this._onExit)
    this._tick()
    this._timer = setInterval(() => this._tick(), this._settings.intervalMs ?? 500)
    // A sampler never keeps a process alive that is otherwise done.
    this._timer.unref()
  }

  /**
   * The files the run runs, as the runner tells them: other runs of the same files count as
   * concurrent. The first list is written at once (until then the marker says null, which every other
   * run counts as overlapping its own); files learnt later go into the marker at the next sample, so a
   * runner that tells them one test file at a time (Jest, Playwright) rewrites it at most once per
   * sample, not once per file (each rewrite is a validated write and a rename: ~2 ms a test file of a
   * Jest run here). Other runs read markers only at their own samples, so a file is late by at most one
   * sample, about the resolution they see it at; this run counts it in its own samples at once.
   */
  addFiles(files: readonly string[]): void {
    const known = new Set(this._files ?? [])
    const added = files.filter((f) => !known.has(f))
    if (added.length === 0 && this._files !== null) return
    const first = this._files === null
    this._files = [...known, ...added]
    if (first || this._marker === undefined) this._writeMarker()
    else this._unwritten = true
  }

  /** The last sample, then the conditions; the marker is removed. */
  stop(): SampledConditions {
    if (this._timer) clearInterval(this._timer)
    this._timer = undefined
    // The marker is removed next: files learnt since the last sample need not be written first.
    this._unwritten = false
    this._tick()
    this._removeMarker()
    process.removeListener('exit', this._onExit)
    return {
      load_per_cpu: loadPerCpu(this._samples, this._scope.cpus),
      cpus: this._scope.cpus,
      load_source: this._scope.source,
      load_samples: this._samples.length,
      concurrent_runs: this._markerFailed ? null : this._concurrent,
      ...(this._scope.source === 'cgroup' ? { throttled: throttledShare(this._throttling, readThrottling(this._scope)) } : {}),
    }
  }

  // --- internal ---

  private _tick(): void {
    if (this._unwritten) this._writeMarker()
    try {
      const runnable = sampleRunnable(this._scope, this._own, this._settings.roots)
      if (runnable !== undefined) this._samples.push(runnable)
      if (this._marker !== undefined) {
        const others = readOtherRunMarkers(runMarkersDir(this._settings.root), this._marker)
        this._concurrent = Math.max(this._concurrent, concurrentRuns(this._files, others.map((m) => m.files)))
      }
    } catch {
      // A sample that could not be taken is left out; the run goes on.
    }
  }

  private _writeMarker(): void {
    this._unwritten = false
    try {
      const written = writeRunMarker(
        this._settings.root,
        { schema_version: 1, pid: process.pid, started_at: this._startedAt.toISOString(), runner: this._settings.runner, files: this._files, ...this._processStart },
        this._marker,
      )
      this._marker = written.path
    } catch {
      // Without a marker other runs cannot see this one, nor this one count them: said as null.
      this._markerFailed = true
    }
  }

  private _removeMarker(): void {
    if (this._marker === undefined) return
    try {
      removeRunMarker(this._marker)
    } catch {
      // Left behind, it names a process that will be gone: the next run ignores and removes it.
    }
    this._marker = undefined
  }
}

/**
 * Runs `run` while sampling its conditions, with `spin` processes spinning for its whole length
 * (a proof under the measured load); the conditions include how many spun.
 */
export async function whileSampling<T>(settings: SamplerSettings, run: () => Promise<T>, spin?: number): Promise<{ result: T; sampled: SampledConditions & { spinning?: number } }> {
  // Spinning before the first sample, and until the last: the load they add is in every sample.
  const load = spin === undefined ? undefined : startLoad(spin)
  const sampler = new RunConditionsSampler(settings)
  sampler.start()
  try {
    const result = await run()
    return { result, sampled: { ...sampler.stop(), ...(spin === undefined ? {} : { spinning: spin }) } }
  } finally {
    load?.stop()
    // Stopped already when `run` returned; stopping again after an error only removes the marker.
    sampler.stop()
  }
}
