import { realpathSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { assertReplaceable, FlakeproofError, type ResolvedVitestOptions, resolveOutDir, type RunnerAdapter, RUNNERS, type RunOutcome, selectProof } from '../../src/session/adapter.js'
import { JEST_VERDICT, type JestRunVerdict } from './reporter.js'
import { jestCliRun, jestModules } from './_jest-modules.js'
import { jestVersion } from './_version.js'

const REPORTER = fileURLToPath(new URL('./reporter.js', import.meta.url))
const RUNNER = fileURLToPath(new URL('./runner.js', import.meta.url))

type Reporter = string | [string, Record<string, unknown>]
interface JestArgv {
  reporters?: Reporter[]
  projects?: string[]
  [key: string]: unknown
}
/** The programmatic entry points of the `jest` package (29 and 30). */
interface JestPackage {
  getVersion(): string
  buildArgv(args: string[]): Promise<JestArgv>
  runCLI(argv: JestArgv, projects: string[]): Promise<{ results: JestResults; globalConfig: { testFailureExitCode: number } }>
}
interface ReadConfigs {
  globalConfig: { rootDir: string; reporters?: Reporter[] }
  configs: ProjectConfig[]
}
/** jest-config's exports, as @jest/core's runCLI reads them when it is called. */
interface JestConfig {
  readConfigs(argv: JestArgv, projects: string[]): Promise<ReadConfigs>
}
interface ProjectConfig {
  id: string
  testRunner: string
}

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
    const jest = loadJest(process.cwd())
    return (options) => runJestOnce(jest, options, [...args], command)
  },
}

// --- internal ---

/** One Jest run with flakeproof's reporter and runner added, and these options. */
async function runJestOnce({ jest, config, circus }: LoadedJest, resolved: ResolvedVitestOptions | undefined, rest: string[], command: string): Promise<RunOutcome> {
  const argv = await jest.buildArgv(rest)
  const projects = argv.projects && argv.projects.length > 0 ? argv.projects : [process.cwd()]
  const ourOptions = { wrapped: { options: resolved }, command }
  let rootDir = process.cwd()
  // Jest's CLI flags would replace what each project sets (`--setupFilesAfterEnv`, `--testRunner`),
  // and the projects may differ: runCLI reads the configs itself, so its read is where each
  // project's runner is wrapped and the reporter added. Put back once the run ends.
  const readConfigs = config.readConfigs
  config.readConfigs = async (...args) => {
    const read = await readConfigs(...args)
    rootDir = read.globalConfig.rootDir
    // A proof that cannot start (nothing to prove, no measurement) says so before Jest adds reporters.
    if (resolved?.proof) selectProof({ runner: RUNNERS.jest, command, version: jest.getVersion() }, rootDir, resolveOutDir(rootDir, resolved), resolved)
    // A JUnit path that can never be written is refused now, not after the whole measurement.
    if (resolved?.junit) assertReplaceable(resolve(rootDir, resolved.junit), 'junit (--flaky-junit)')
    const runners: Record<string, string> = {}
    const configs = read.configs.map((c) => {
      if (c.testRunner !== RUNNER && c.testRunner !== circus) runners[c.id] = c.testRunner
      return { ...c, testRunner: RUNNER }
    })
    const reporters = (read.globalConfig.reporters ?? [['default', {}] as Reporter]).filter((r) => !isOurs(Array.isArray(r) ? r[0] : r, REPORTER))
    const globalConfig = { ...read.globalConfig, reporters: [...reporters, [REPORTER, { ...ourOptions, runners }] as Reporter] }
    return { ...read, globalConfig, configs }
  }
  delete (globalThis as Record<symbol, unknown>)[JEST_VERDICT]
  let ran: Awaited<ReturnType<JestPackage['runCLI']>>
  try {
    ran = await jest.runCLI(argv, projects)
  } finally {
    config.readConfigs = readConfigs
  }
  const { results, globalConfig: used } = ran
  const verdict = (globalThis as Record<symbol, JestRunVerdict | undefined>)[JEST_VERDICT]
  const outDir = resolve(rootDir, resolved?.outDir ?? '.flakeproof')
  const testTimeMs = results.testResults.reduce((sum, r) => sum + Math.max(0, (r.perfStats?.end ?? 0) - (r.perfStats?.start ?? 0)), 0)
  const code = verdict?.proofFailed ? 1 : results.success || (verdict?.advisory && onlyTestsFailed(results)) ? 0 : used.testFailureExitCode
  return { code, outDir, testTimeMs }
}

/** What of Jest's aggregated result tells failed tests from Jest's other reasons to fail, and the time in them. */
interface JestResults {
  success: boolean
  numFailedTests: number
  numRuntimeErrorTestSuites: number
  snapshot: { failure: boolean }
  testResults: { perfStats?: { start?: number; end?: number } }[]
}

/**
 * Jest failed only because tests failed: a measurement's failed copies may then be advisory. A file
 * that could not run, a snapshot failure, or a failure with no failed test (a coverage threshold,
 * a reporter's error) keeps Jest's exit code: flakeproof only ever raises it.
 */
function onlyTestsFailed(results: JestResults): boolean {
  return results.numFailedTests > 0 && results.numRuntimeErrorTestSuites === 0 && !results.snapshot.failure
}

interface LoadedJest {
  jest: JestPackage
  config: JestConfig
  /** The project's jest-circus/runner: a project using it needs no entry in the runners map. */
  circus: string
}

/** The project's Jest (not ours): `jest`, and `jest-config` as its runCLI resolves it. */
function loadJest(cwd: string): LoadedJest {
  const modules = jestModules(cwd)
  if (!modules) throw new FlakeproofError('Jest is not installed here; `npm i -D jest` (29 or 30)', 'E_USAGE')
  const load = createRequire(modules.jest)
  const main = load(modules.jest) as JestPackage
  // Jest 30 exports buildArgv from `jest`; 29 keeps it in jest-cli's run.js.
  const buildArgv = main.buildArgv ?? (load(jestCliRun(modules)) as Partial<JestPackage>).buildArgv
  const jest: JestPackage = { getVersion: main.getVersion, runCLI: main.runCLI, buildArgv }
  const config = load(modules.config) as JestConfig
  if (typeof jest.buildArgv !== 'function' || typeof jest.runCLI !== 'function' || typeof config.readConfigs !== 'function') {
    throw new FlakeproofError(`the Jest at ${dirname(modules.jest)} has no buildArgv/runCLI/readConfigs; flakeproof jest supports Jest 29 and 30`, 'E_USAGE')
  }
  return { jest, config, circus: modules.circus }
}

/** The user listed flakeproof's own reporter already (any copy of this package): it is not added twice. */
function isOurs(path: string, ours: string): boolean {
  if (/flakeproof\/jest\/reporter$/.test(path)) return true
  try {
    return realpathSync(path) === realpathSync(ours)
  } catch {
    return false
  }
}
