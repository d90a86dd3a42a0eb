/**
 * Whether a proof ran under at least the stress of the measurement it proves (docs/contracts.md
 * §13.5). A flake that needs a busy machine, several workers or several runs of the same files at
 * once may pass an idle, single-worker repetition of the unfixed code: such a proof is *weaker*, and
 * says so, rather than proving a fix it could not have seen fail.
 */

/** The conditions a run met, as the files record them (null or absent: not known). */
export interface RunStress {
  /** Tasks ready to run per CPU available, averaged over the run. */
  load_per_cpu?: number | null | undefined
  /** CPUs available to the run (the cgroup's limit where one is set). */
  cpus?: number | null | undefined
  /** Test workers that ran at once: the runner's maximum, at most one per file run. */
  workers?: number | null | undefined
  /** flakeproof runs of the same files at once, this one included (the most seen). */
  concurrent_runs?: number | null | undefined
  /** How the runner ran the files (Vitest's `pool`, Jest's `workers` or `in-band`). */
  pool?: string | null | undefined
  /** Each file in a fresh module environment. */
  isolate?: boolean | null | undefined
  /** Processes flakeproof kept spinning for the whole run (`--flaky-load-procs` without load rounds). */
  spinning?: number | null | undefined
  /** Where a cgroup limits the CPUs: the share of its quota periods in which it was throttled (recorded, not compared). */
  throttled?: number | null | undefined
}

export type StressCondition = 'workers' | 'concurrent_runs' | 'pool' | 'isolate' | 'load_per_cpu'

/** One way a proof was easier than its measurement, with both values. */
export interface Weakness {
  condition: StressCondition
  measured: number | string | boolean
  proof: number | string | boolean
}

/** A proof is weaker when its load per CPU is lower than the measurement's by more than this. */
export const LOAD_TOLERANCE = 0.5

/**
 * Every condition under which the proof was easier than the measurement: fewer workers or fewer
 * concurrent runs, another pool or isolation, or a load per CPU lower by more than 0.5. A condition
 * either side does not know is not compared (a measurement written before it was recorded).
 */
export function weakerConditions(measured: RunStress | undefined, proof: RunStress): Weakness[] {
  if (!measured) return []
  const found: Weakness[] = []
  const fewer = (condition: 'workers' | 'concurrent_runs'): void => {
    const [m, p] = [measured[condition], proof[condition]]
    if (isNumber(m) && isNumber(p) && p < m) found.push({ condition, measured: m, proof: p })
  }
  fewer('workers')
  fewer('concurrent_runs')
  if (isText(measured.pool) && isText(proof.pool) && measured.pool !== proof.pool) found.push({ condition: 'pool', measured: measured.pool, proof: proof.pool })
  if (typeof measured.isolate === 'boolean' && typeof proof.isolate === 'boolean' && measured.isolate !== proof.isolate) {
    found.push({ condition: 'isolate', measured: measured.isolate, proof: proof.isolate })
  }
  const [m, p] = [measured.load_per_cpu, proof.load_per_cpu]
  // Both are written to two decimals: compared in hundredths, exactly (0.3 − 0.8 must not be −0.5000000001).
  if (isNumber(m) && isNumber(p) && Math.round(m * 100) - Math.round(p * 100) > Math.round(LOAD_TOLERANCE * 100)) found.push({ condition: 'load_per_cpu', measured: m, proof: p })
  return found
}

/**
 * Spinning processes that bring a proof's load per CPU up to the measurement's: the load missing,
 * times the CPUs, rounded up, on top of those the proof already spun (each spinning process keeps
 * one task ready to run). At least one more than it had.
 */
export function loadProcsToMatch(measuredLoad: number, proofLoad: number, cpus: number, spinning: number): number {
  // In hundredths of a load and of a CPU, so the product is an integer and its ceiling exact.
  const missing = Math.max(0, Math.round(measuredLoad * 100) - Math.round(proofLoad * 100))
  const product = missing * Math.round(cpus * 100)
  return spinning + Math.max(1, Math.floor((product + 9999) / 10000))
}

/**
 * One line per weakness: both values, and how to match the measurement. `loadFlag` spells the
 * option that spins processes in this kind of run (`--flaky-load-procs 6`).
 */
export function describeWeakness(weakness: Weakness, proof: RunStress, loadFlag: (procs: number) => string): string {
  const { condition, measured, proof: ran } = weakness
  switch (condition) {
    case 'workers':
      return `${ran} worker(s) at once, ${measured} when measured: run as many files at once (the whole selection, and at least ${measured} workers)${proof.pool === JEST_IN_BAND ? jestWorkers(measured) : ''}`
    case 'concurrent_runs':
      return `${ran} flakeproof run(s) of these files at once, ${measured} when measured: start ${measured} at once, as the measurement did`
    case 'pool':
      if (ran === JEST_IN_BAND && measured === 'workers') return `pool in-band, measured in pool workers${jestWorkers()}`
      return `pool ${ran}, measured in pool ${measured}: run it in ${measured}${VITEST_POOLS.has(String(measured)) ? ` (--pool ${measured})` : ''}`
    case 'isolate':
      return `isolation ${ran ? 'on' : 'off'}, measured with it ${measured ? 'on' : 'off'}: run it as measured`
    case 'load_per_cpu': {
      const cpus = proof.cpus ?? 1
      const procs = loadProcsToMatch(Number(measured), Number(ran), cpus, proof.spinning ?? 0)
      return `load ${fixed(ran)} per CPU, ${fixed(measured)} when measured: add ${loadFlag(procs)} (${procs} spinning process(es) on ${cpus} CPU(s))`
    }
  }
}

/**
 * flakeproof runs of the same files at once, this one included: the other runs under way whose files
 * overlap this run's. A run whose files are not known yet (null) may run any of them, so it counts.
 */
export function concurrentRuns(own: readonly string[] | null, others: readonly (readonly string[] | null)[]): number {
  const mine = own === null ? null : new Set(own)
  return 1 + others.filter((files) => mine === null || files === null || files.some((f) => mine.has(f))).length
}

/** Jest's pool when it runs the files in its own process (docs/contracts.md §12). */
export const JEST_IN_BAND = 'in-band'

/** Vitest's own pools, each named by its `--pool` flag (a `+` of several projects' pools has none). */
export const VITEST_POOLS: ReadonlySet<string> = new Set(['forks', 'threads', 'vmForks', 'vmThreads'])

// --- internal ---

/**
 * How to keep Jest's workers: Jest runs the files in band with one file, one worker, or files its
 * cache timed as fast (under 1 s) — as a proof after a measurement usually finds them — unless a
 * worker memory limit is set (its `shouldRunInBand`).
 */
function jestWorkers(workers?: number | string | boolean): string {
  const maxWorkers = workers === undefined ? '--maxWorkers as measured' : `--maxWorkers=${workers}`
  return `; Jest ran them in its own process (one file, one worker, or files its cache timed as fast): add --workerIdleMemoryLimit=1GB, which keeps its workers, and ${maxWorkers}`
}

function isNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value)
}

function isText(value: unknown): value is string {
  return typeof value === 'string' && value !== ''
}

function fixed(value: number | string | boolean): string {
  return Number(value).toFixed(2)
}
