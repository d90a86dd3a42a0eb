import { availableParallelism } from 'node:os'
import { resolve } from 'node:path'
import { assertReplaceable, CONDITION_ENV, FlakeproofError, flakeproofErrorIn, hintsFor, loadEnforcement, logLine, type PlannedRound, planRounds, type ProcessEnding, type ResolvedVitestOptions, resolveJunitPath, resolveOutDir, type RunnerAdapter, RUNNERS, type RunOutcome, selectProof, startFailure, startLoad } from '../../src/session/adapter.js'
import { JEST_ROUNDS, JEST_VERDICT, type JestRounds, type JestRunVerdict } from './reporter.js'
import { isOurs, type JestArgv, type JestGlobalConfig, type JestResults, type LoadedJest, loadJest, type Reporter, REPORTER, RUNNER } from './_jest-load.js'
import { refuseNotARun } from './_jest-args.js'
import { watchReporterErrors } from './_reporter-errors.js'
import { idRootOf } from './_id-root.js'
import { jestVersion } from './_version.js'

/**
 * `flakeproof jest [--flaky-*] [jest args]` (docs/jest.md): Jest's own entry points, in this process,
 * with flakeproof's reporter added to the resolved reporters and flakeproof's test runner wrapping
 * each project's own (plugin/jest/runner.ts) — whatever each project's environment, setup files or
 * docblocks. Every other argument goes to Jest's parser untouched. A run's exit code is Jest's,
 * except that a measurement's failed copies are advisory (as with Vitest) unless
 * `--flaky-fail-on-flaky`, and a failed proof is 1.
 */
export const jestAdapter: RunnerAdapter = {
  runner: RUNNERS.jest,
  version: () => jestVersion(process.cwd()),
  async prepare(args, command) {
    // What Jest's bin does before it runs (jest-cli/bin/jest.js, 29 and 30), and runCLI does not:
    // configs, transforms (babel's `env.test`) and tests read it, so without it they ran unlike `jest`.
    process.env.NODE_ENV ??= 'test'
    const jest = loadJest(process.cwd())
    // Jest's parse of its arguments, once: each run (a budget's, the rounds') starts from it.
    const argv = await jest.jest.buildArgv([...args])
    refuseNotARun(argv, 'arguments')
    return (options) => runJestOnce(jest, options, argv, command)
  },
}

// --- internal ---

/** One Jest run with flakeproof's reporter and runner added, and these options. */
async function runJestOnce({ jest, config, circus, reporterBase }: LoadedJest, resolved: ResolvedVitestOptions | undefined, argv: JestArgv, command: string): Promise<RunOutcome> {
  const projects = argv.projects && argv.projects.length > 0 ? argv.projects : [process.cwd()]
  const ourOptions = { wrapped: { options: resolved }, command }
  // Whole-run rounds (docs/jest.md): runCLI again for each, so every round loads each test file
  // anew (fresh module state); serial rounds run in band, shuffled ones with Jest's own seed.
  const plan = resolved ? planRounds(resolved, () => Date.now() % 1_000_000) : []
  if (plan.some((r) => r.seed !== null) && hintsFor({ runner: 'jest', version: jest.getVersion() }).seededOrder('1') === null) {
    throw new FlakeproofError(`--flaky-seed and --flaky-shuffle order tests with Jest's --randomize, which Jest ${jest.getVersion()} does not have (from 29.5 on)`, 'E_USAGE')
  }
  if (resolved?.divergence && argv.maxWorkers === undefined && availableParallelism() - 1 <= 1) {
    process.stderr.write(`${logLine('[flakeproof] --flaky-divergence: Jest uses CPUs - 1 = 1 worker here, so parallel rounds run one file at a time (in a worker process); pass --maxWorkers=<n> (n >= 2) to run files side by side', process.env)}\n`)
  }
  let rootDir = process.cwd()
  // Set once the measurement's own runs are done: the runs after are fresh-state evidence.
  let evidenceRuns = false
  // A planned round after the first: GitHub shows 10 error annotations a step, so Jest's own come from the first only.
  let laterRound = false
  // Jest's CLI flags would replace what each project sets (`--setupFilesAfterEnv`, `--testRunner`),
  // and the projects may differ: runCLI reads the configs itself, so its read is where each
  // project's runner is wrapped and the reporter added. Put back once the run ends.
  const readConfigs = config.readConfigs
  config.readConfigs = async (...args) => {
    const read = await readConfigs(...args).catch((error: unknown) => {
      // A config Jest cannot read (`jest` prints its stack): one line, exit 2, as `flakeproof vitest` says it.
      // jest-validate's verdict on a config (an unknown option) is Jest's to say (runner-commands.ts `ownError`).
      if (flakeproofErrorIn(error) || (error as object | undefined)?.constructor?.name === 'ValidationError') throw error
      throw new FlakeproofError(`Jest did not start: ${startFailure(error)} (\`npx jest\` prints Jest's own report)`, 'E_USAGE', { cause: error })
    })
    refuseNotARun(read.globalConfig, 'config')
    rootDir = read.globalConfig.rootDir
    if (resolved) {
      // An output folder it may not write is refused here, in one line, not by Jest as a reporter that failed to load.
      const outDir = resolveOutDir(rootDir, resolved)
      // A proof that cannot start (nothing to prove, no measurement) says so before Jest adds reporters.
      if (resolved.proof) selectProof({ runner: RUNNERS.jest, command, version: jest.getVersion() }, rootDir, outDir, resolved)
    }
    // Enforcing nothing while CI believes it enforces is not allowed: a missing policy stops here.
    if (resolved?.enforce) loadEnforcement(rootDir, resolved)
    // A JUnit path that can never be written is refused now, not after the whole measurement.
    const junit = resolved ? resolveJunitPath(rootDir, resolved) : undefined
    if (junit !== undefined) assertReplaceable(junit, 'junit (--flaky-junit)')
    const runners: Record<string, string> = {}
    const configs = read.configs.map((c) => {
      if (c.testRunner !== RUNNER && c.testRunner !== circus) runners[c.id] = c.testRunner
      return { ...c, testRunner: RUNNER }
    })
    const reporters = (read.globalConfig.reporters ?? [['default', {}] as Reporter]).filter((r) => !isOurs(Array.isArray(r) ? r[0] : r, REPORTER))
    // First: it caps the failure text of a file's copies before the default reporter prints it.
    const ours = [REPORTER, { ...ourOptions, runners }] as Reporter
    // The fresh-state runs report to flakeproof alone: the user's reporters, coverage, `--json`, a
    // results processor and notifications report the measured run, which these few files run again would replace.
    const globalConfig = evidenceRuns
      ? { ...read.globalConfig, reporters: [ours], collectCoverage: false, json: false, testResultsProcessor: undefined, notify: false }
      : { ...read.globalConfig, reporters: [ours, ...reporters.filter((r) => !laterRound || (Array.isArray(r) ? r[0] : r) !== 'github-actions')] }
    return { ...read, globalConfig, configs }
  }
  const rounds = plan.length > 1 ? plan : [plan[0]]
  // A measurement's rounds share one session even when there is one, so fresh-state rounds can follow it.
  const shares = rounds.length > 1 || (resolved !== undefined && !resolved.proof && !resolved.enforce)
  // Over every round: whether any failed, and whether every failure was a failed test.
  let failed = false
  let onlyTests = true
  let failureCode = 1
  let testTimeMs = 0
  let ending: ProcessEnding | undefined
  const tally = ({ results, globalConfig }: { results: JestResults; globalConfig: JestGlobalConfig }): void => {
    testTimeMs += results.testResults.reduce((sum, r) => sum + Math.max(0, (r.perfStats?.end ?? 0) - (r.perfStats?.start ?? 0)), 0)
    failureCode = globalConfig.testFailureExitCode
    ending = openHandlesEnding(globalConfig)
    // A fresh-state run's outcome is evidence, in flakeproof's files: the exit code stays the measured run's.
    if (evidenceRuns) return
    failed ||= !results.success
    onlyTests &&= results.success || onlyTestsFailed(results)
  }
  const host = globalThis as Record<symbol, unknown>
  // A reporter's error (a coverage threshold) is never advisory, even beside failed copies.
  const reporterErrors = watchReporterErrors(reporterBase)
  try {
    for (const [i, round] of rounds.entries()) {
      laterRound = i > 0
      delete host[JEST_VERDICT]
      if (round && shares) host[JEST_ROUNDS] = { ...(host[JEST_ROUNDS] as JestRounds | undefined), round, of: rounds.length, fresh: undefined } satisfies JestRounds
      tally(await underCondition(round, resolved, () => jest.runCLI(withCondition(argv, round, resolved?.divergence === true), projects)))
    }
    // Evidence rounds (src/pipeline/fresh-evidence.ts, plain-evidence.ts): the files of the tests
    // whose single switch chance explains too well, and of those that failed every repetition, run
    // again whole (a test may need its siblings), each run a new runCLI, so every file loaded anew; a
    // plain round runs each test once. Reported to flakeproof alone (readConfigs above), so no
    // coverage report of these few files replaces the measured run's or fails its thresholds.
    const shared = (host[JEST_ROUNDS] as JestRounds | undefined)?.shared
    const evidence = shared?.session.roundsOpen ? shared.session.freshEvidence() : undefined
    evidenceRuns = true
    for (const [k, round] of (evidence?.rounds ?? []).entries()) {
      if (!shared?.session.roundsOpen) break
      const paths = [...new Set(round.files.map((f) => resolve(idRootOf(rootDir), f.file)))]
      // No path would make Jest run every file: never an evidence round.
      if (paths.length === 0) continue
      host[JEST_ROUNDS] = { ...(host[JEST_ROUNDS] as JestRounds), fresh: { round: k + 1, plain: round.kind === 'plain' } } satisfies JestRounds
      tally(await jest.runCLI({ ...argv, _: paths, runTestsByPath: true }, projects))
    }
  } finally {
    config.readConfigs = readConfigs
    reporterErrors.stop()
    // Rounds cut short (an error of Jest's between them): what ran is written, incomplete.
    const shared = (host[JEST_ROUNDS] as JestRounds | undefined)?.shared
    if (shared?.session.roundsOpen) {
      shared.session.endRounds()
      shared.session.release()
    }
    delete host[JEST_ROUNDS]
  }
  const verdict = host[JEST_VERDICT] as JestRunVerdict | undefined
  const outDir = resolve(rootDir, resolved?.outDir ?? '.flakeproof')
  const code = verdict?.proofFailed ? 1 : !failed || (verdict?.advisory && onlyTests && !reporterErrors.failed) ? 0 : failureCode
  return { code, outDir, testTimeMs, ending }
}

/**
 * What Jest's CLI does once the run is over (readResultsAndExit): under forceExit it exits at once;
 * else, unless it is looking for open handles, it says after `openHandlesTimeout` (Jest 30; one
 * second in 29) that something keeps the process open, and waits on.
 */
function openHandlesEnding(globalConfig: JestGlobalConfig): ProcessEnding | undefined {
  if (globalConfig.forceExit === true) return { afterMs: 0, exits: true }
  const afterMs = globalConfig.openHandlesTimeout ?? 1000
  if (globalConfig.detectOpenHandles === true || afterMs === 0) return undefined
  return {
    afterMs,
    exits: false,
    warning: `[flakeproof] the process is still running ${afterMs} ms after the run, as \`jest\` would say: something a test started (a timer, a server) keeps it open; \`--detectOpenHandles\` finds it, \`--forceExit\` ends the run there`,
  }
}

/**
 * A round's condition on Jest's arguments: serial runs in band; a seed shuffles each file's tests
 * (Jest's --randomize). Under --flaky-divergence the other rounds run in worker processes even where
 * Jest would run a small suite in band (a memory limit for idle workers is what makes it use them).
 */
function withCondition(argv: JestArgv, round: PlannedRound | undefined, divergence: boolean): JestArgv {
  if (!round) return argv
  const workers = round.condition === 'serial' ? { runInBand: true } : divergence && !argv.runInBand ? { workerIdleMemoryLimit: argv.workerIdleMemoryLimit ?? '1GB' } : {}
  return { ...argv, ...workers, ...(round.seed === null ? {} : { randomize: true, seed: round.seed }) }
}

/** A round under its condition: the loaded one with processes spinning, each round's workers told it (FLAKEPROOF_CONDITION). */
async function underCondition<T>(round: PlannedRound | undefined, resolved: ResolvedVitestOptions | undefined, run: () => Promise<T>): Promise<T> {
  if (!round || !resolved) return run()
  const saved = process.env[CONDITION_ENV]
  process.env[CONDITION_ENV] = round.condition
  const load = round.condition === 'load' ? startLoad(resolved.loadProcs ?? availableParallelism()) : undefined
  try {
    return await run()
  } finally {
    load?.stop()
    if (saved === undefined) delete process.env[CONDITION_ENV]
    else process.env[CONDITION_ENV] = saved
  }
}

/**
 * Jest failed only because tests failed: a measurement's failed copies may then be advisory. A file
 * that could not run, a snapshot failure, or a failure with no failed test keeps Jest's exit code, as
 * does a reporter's error beside failed tests (watchReporterErrors): flakeproof only ever raises it.
 */
function onlyTestsFailed(results: JestResults): boolean {
  return results.numFailedTests > 0 && results.numRuntimeErrorTestSuites === 0 && !results.snapshot.failure
}
