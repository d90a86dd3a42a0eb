import { availableParallelism } from 'node:os'
import type { Vitest } from 'vitest/node'
import { workersOf } from './_workers.js'
import { CONDITION_ENV, type PlannedRound, planRounds, type ResolvedVitestOptions, type RoundsReporter, startLoad } from '../../src/session/adapter.js'
import { relativeFile } from './_test-ids.js'

/**
 * Whole-run rounds: `vitest.start` runs the selected files once, then `runTestSpecifications` runs
 * the same specifications again for each planned round in this Vitest, so only the first round pays
 * start-up (config, plugins, globbing). Each run gets new workers (Vitest 3.2–5 tear its pool's
 * workers down between runs, isolate or not), hence fresh module state. Works for `vitest run` with
 * the plugin and for `flakeproof vitest` alike, since both call `start`; watch mode keeps its own
 * reruns. `runTestSpecifications` rather than `rerunTestSpecifications`: the latter prints watch-mode
 * banners. An interrupted round ends the measurement (the reporter writes what ran), and the loop.
 */
export function runInRounds(vitest: Vitest, options: ResolvedVitestOptions, reporter: RoundsReporter): void {
  const plan = planRounds(options, () => Date.now() % 1_000_000)
  if (vitest.config.watch) return
  // This loop can run fresh-state rounds; the session says whether this run may ask for them.
  const mayAskFresh = reporter.expectFreshEvidence()
  if (plan.length <= 1 && !mayAskFresh) return
  const loadProcs = options.loadProcs ?? availableParallelism()
  if (options.divergence && vitest.projects.every((p) => workersOf(vitest, p.config) <= 1)) {
    vitest.logger.warn(
      '[flakeproof] --flaky-divergence: the configured rounds already run on one worker here (Vitest uses CPUs - 1), so parallel and serial rounds are alike; pass --maxWorkers=<n> (n >= 2) to compare them',
    )
  }
  const start = vitest.start.bind(vitest)
  vitest.start = async (filters?: string[]) => {
    try {
      const first = await underCondition(vitest, plan[0] as PlannedRound, plan.length, loadProcs, reporter, () => start(filters))
      const specifications = await vitest.getRelevantTestSpecifications(filters)
      for (const round of plan.slice(1)) {
        if (!reporter.roundsOpen) break
        // GitHub shows 10 error annotations a step: the runner's own come from the first round only.
        const run = () => vitest.runTestSpecifications(specifications, true)
        await underCondition(vitest, round, plan.length, loadProcs, reporter, () => reportingTo(vitest, reporter, (r) => !isGithubActionsReporter(r), run))
      }
      // Evidence rounds: the files of the tests whose single switch chance explains too well, and of
      // those that failed every repetition, run again whole (a test may need its siblings), each run
      // with new workers; a plain round runs each test once, as an ordinary run does.
      const evidence = reporter.roundsOpen ? reporter.freshEvidence() : undefined
      if (evidence && evidence.rounds.length > 0) {
        coverageOff(vitest)
        // Their outcome is evidence, in flakeproof's files: the exit code stays the measured run's
        // (Vitest sets 1 for a file or an error of theirs, which its reporters no longer show).
        const code = process.exitCode
        try {
          await reportingTo(vitest, reporter, (r) => r === reporter, async () => {
            for (const [k, round] of evidence.rounds.entries()) {
              if (!reporter.roundsOpen) break
              const files = new Set(round.files.map((f) => JSON.stringify([f.project, f.file])))
              const again = specifications.filter((s) => files.has(JSON.stringify([s.project.name, relativeFile(s.project.config.root, s.moduleId)])))
              // None of its files among this run's: endRounds() below writes what the others gathered.
              if (again.length === 0) continue
              reporter.planFreshRound(k + 1)
              await asEvidence(vitest, round.kind === 'plain', () => vitest.runTestSpecifications(again, true))
            }
          })
        } finally {
          process.exitCode = code
        }
      }
      return first
    } finally {
      // Normally the last round's end already wrote the files; this only catches a loop cut short.
      reporter.endRounds()
    }
  }
}

// --- internal ---

/**
 * Runs `run` with the reporters `keep` keeps, then gives Vitest all of them back. The fresh-state
 * rounds keep flakeproof's alone: the user's (a JUnit or JSON `outputFile`, a blob for
 * `--merge-reports`, GitHub annotations, the terminal's summary) report the measured run, and these
 * few files run again would replace or repeat it. Vitest 3.2 to 5 call every reporter from the one
 * `reporters` list, changed here in place; never without flakeproof's own, which records the run.
 */
async function reportingTo<T>(vitest: Vitest, ours: RoundsReporter, keep: (reporter: unknown) => boolean, run: () => Promise<T>): Promise<T> {
  // `Vitest.reporters` is not in Vitest's public types (as in plugin.ts installFlakeproof).
  const reporters = (vitest as unknown as { reporters: unknown[] }).reporters
  const all = [...reporters]
  const kept = all.filter(keep)
  if (!kept.includes(ours)) return run()
  reporters.splice(0, reporters.length, ...kept)
  try {
    return await run()
  } finally {
    reporters.splice(0, reporters.length, ...all)
  }
}

/**
 * Runs an evidence round with every project's workers told to make no gapped repetitions (the
 * evidence is in the fast ones: a gap of seconds per repetition would only slow it), and for a
 * `plain` round to run each test once, as `vitest run` does. Vitest hands each run's new workers
 * the provided context as it is then.
 */
async function asEvidence<T>(vitest: Vitest, plain: boolean, run: () => Promise<T>): Promise<T> {
  const saved = vitest.projects.map((p) => p.getProvidedContext().flakeproof)
  vitest.projects.forEach((p, i) => {
    const options = saved[i]
    if (options) p.provide('flakeproof', { ...options, ...(plain ? { repeat: 1 } : {}), slowRepeat: 0 })
  })
  try {
    return await run()
  } finally {
    vitest.projects.forEach((p, i) => {
      const options = saved[i]
      if (options) p.provide('flakeproof', options)
    })
  }
}

/**
 * Vitest's `github-actions` reporter, which it adds by itself under GitHub Actions (3.2 to 5: the
 * class keeps its name in Vitest's unminified build).
 */
function isGithubActionsReporter(reporter: unknown): boolean {
  return (reporter as object | null)?.constructor?.name === 'GithubActionsReporter'
}

/**
 * Coverage off for the runs that follow, the fresh-state rounds (this Vitest's last runs): a report
 * of their few files would replace the measured run's (Vitest writes `reportsDirectory` anew each
 * run) and fail its thresholds, exit 1. Vitest 4 and 5 have `disableCoverage`; 3.2 reads its
 * provider from a field, where null is none.
 */
function coverageOff(vitest: Vitest): void {
  const api: { disableCoverage?: () => void } = vitest
  if (api.disableCoverage) api.disableCoverage.call(vitest)
  else Object.assign(vitest, { coverageProvider: null })
}

interface Sequence {
  shuffle?: unknown
  seed?: number
}

/**
 * Runs one round under its condition and puts everything back afterwards. Serial: one worker for
 * every project (what `fileParallelism: false` resolves to; read per run by Vitest 4's pool). Load:
 * spinning processes for the round's length. The seed: Vitest rebuilds the workers' config every run.
 */
async function underCondition<T>(vitest: Vitest, round: PlannedRound, of: number, loadProcs: number, reporter: RoundsReporter, run: () => Promise<T>): Promise<T> {
  const configs = [vitest.config, ...vitest.projects.map((p) => p.config)] as { maxWorkers?: number; sequence: Sequence }[]
  const saved = configs.map((c) => ({ maxWorkers: c.maxWorkers, shuffle: c.sequence.shuffle, seed: c.sequence.seed }))
  const savedEnv = process.env[CONDITION_ENV]
  process.env[CONDITION_ENV] = round.condition
  if (round.condition === 'serial') for (const c of configs) c.maxWorkers = 1
  if (round.seed !== null) {
    for (const c of configs) {
      c.sequence.shuffle = { files: false, tests: true }
      c.sequence.seed = round.seed
    }
  }
  const load = round.condition === 'load' ? startLoad(loadProcs) : undefined
  reporter.planRound(round, of)
  try {
    return await run()
  } finally {
    load?.stop()
    configs.forEach((c, i) => {
      const before = saved[i] as (typeof saved)[number]
      c.maxWorkers = before.maxWorkers
      c.sequence.shuffle = before.shuffle
      c.sequence.seed = before.seed
    })
    if (savedEnv === undefined) delete process.env[CONDITION_ENV]
    else process.env[CONDITION_ENV] = savedEnv
  }
}
