import { resolve } from 'node:path'
import { FlakeproofError, type ResolvedVitestOptions, type RunnerAdapter, RUNNERS, type RunOutcome, takenOptions } from '../../src/session/adapter.js'
import { ENVIRONMENT, isOurs, type JestArgv, type JestResults, type LoadedJest, loadJest, type ProjectConfig, REPORTER, SETUP } from './_jest-api.js'
import { JEST_VERDICT, type JestRunVerdict } from './reporter.js'
import { jestVersion } from './_version.js'

/**
 * `flakeproof jest [--flaky-*] [jest args]` (docs/contracts.md §12): Jest's own entry points, in this
 * process, with flakeproof's reporter and setup file *added* to the resolved config — Jest's CLI flags
 * `--reporters` and `--setupFilesAfterEnv` would replace the user's. Every other argument goes to
 * Jest's parser untouched. A run's exit code is Jest's, except that a measurement's failed copies
 * are advisory (as with Vitest) unless `--flaky-fail-on-flaky`, and a failed proof is 1.
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

/** One Jest run with flakeproof's reporter and setup file added, and these options. */
async function runJestOnce({ jest, config }: LoadedJest, resolved: ResolvedVitestOptions | undefined, rest: string[], command: string): Promise<RunOutcome> {
  const argv = await jest.buildArgv(rest)
  const projects = argv.projects && argv.projects.length > 0 ? argv.projects : [process.cwd()]
  const { globalConfig, configs } = await config.readConfigs(argv, projects)
  const reporters = (globalConfig.reporters ?? ['default']).filter((r) => !isOurs(Array.isArray(r) ? r[0] : r, REPORTER))
  const ourOptions = { ...(resolved ? takenOptions(RUNNERS.jest, resolved) : {}), command }
  const setups = sameSetting(configs.map((c) => c.setupFilesAfterEnv), 'setupFilesAfterEnv')
  const withOurs: JestArgv = {
    ...argv,
    reporters: [...reporters, [REPORTER, ourOptions]],
    setupFilesAfterEnv: [...setups.filter((s) => !isOurs(s, SETUP)), SETUP],
    // Jest 29 gives a setup file no circus handler list: the repetition rides on the environment.
    ...(Number.parseInt(jest.getVersion(), 10) < 30 ? withOurEnvironment(configs) : {}),
  }
  delete (globalThis as Record<symbol, unknown>)[JEST_VERDICT]
  const { results, globalConfig: used } = await jest.runCLI(withOurs, projects)
  const verdict = (globalThis as Record<symbol, JestRunVerdict | undefined>)[JEST_VERDICT]
  const outDir = resolve(globalConfig.rootDir ?? process.cwd(), resolved?.outDir ?? '.flakeproof')
  const testTimeMs = results.testResults.reduce((sum, r) => sum + Math.max(0, (r.perfStats?.end ?? 0) - (r.perfStats?.start ?? 0)), 0)
  const code = verdict?.proofFailed ? 1 : results.success || (verdict?.advisory && onlyTestsFailed(results)) ? 0 : used.testFailureExitCode
  return { code, outDir, testTimeMs }
}


/**
 * Jest failed only because tests failed: a measurement's failed copies may then be advisory. A file
 * that could not run, a snapshot failure, or a failure with no failed test (a coverage threshold,
 * a reporter's error) keeps Jest's exit code: flakeproof only ever raises it.
 */
function onlyTestsFailed(results: JestResults): boolean {
  return results.numFailedTests > 0 && results.numRuntimeErrorTestSuites === 0 && !results.snapshot.failure
}

/** The project's environment, made by flakeproof's (plugin/jest/environment.ts), with its options kept. */
function withOurEnvironment(configs: readonly ProjectConfig[]): Partial<Pick<JestArgv, 'testEnvironment' | 'testEnvironmentOptions'>> {
  const base = sameSetting(configs.map((c) => [c.testEnvironment]), 'testEnvironment')[0] as string
  if (isOurs(base, ENVIRONMENT)) return {}
  const options = sameSetting(configs.map((c) => [JSON.stringify(c.testEnvironmentOptions ?? {})]), 'testEnvironmentOptions')[0] as string
  return { testEnvironment: ENVIRONMENT, testEnvironmentOptions: JSON.stringify({ ...JSON.parse(options), flakeproofBase: base }) }
}

/**
 * One Jest flag applies to every project: it can carry the user's setting only if every project has
 * the same one.
 */
function sameSetting(lists: readonly string[][], name: string): string[] {
  const [first = []] = lists
  if (lists.some((list) => list.join('\n') !== first.join('\n'))) {
    throw new FlakeproofError(
      `the projects have different ${name}, which one Jest flag cannot keep; add 'flakeproof/jest/setup' to each project's setupFilesAfterEnv and ['flakeproof/jest/reporter', { repeat: 200 }] to reporters, then run jest`,
      'E_USAGE',
    )
  }
  return first
}
