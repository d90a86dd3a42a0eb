import type { CliOptions, parseCLI } from 'vitest/node'
import { FlakeproofError } from '../../src/session/adapter.js'

/**
 * What `vitest run <args>` does between parsing its arguments and `createVitest`, which a caller of
 * `createVitest` must do itself, or its run is not the user's: Vitest's CLI `start` and its
 * `prepareVitest` (`normalizeCliOptions`; the same in 3.2, 4.0, 4.1 and 5.x).
 * - `--exclude` adds to the config's excludes (`cliExclude`): as `exclude` it replaced them, Vitest's
 *   default `**\/node_modules/**` with them, and every test file under node_modules ran.
 * - A `file:line` filter turns `includeTaskLocation` on (else Vitest refuses the filter).
 * - `--typecheck.only` turns typecheck on (else the runtime tests ran in its place).
 * - `--standalone` is dropped when files are named, as Vitest drops it.
 * - `related <files>` runs the tests related to those files, as `vitest related --run`.
 * Modes and commands that run no test, or never end, are refused: flakeproof measures one run.
 */
export function vitestRunArgs(parse: typeof parseCLI, args: readonly string[]): { filter: string[]; options: CliOptions } {
  const [first, ...rest] = args
  if (first !== undefined && NOT_A_RUN_COMMANDS.includes(first)) {
    throw new FlakeproofError(`\`vitest ${first}\` is not one run of the tests; flakeproof vitest takes what \`vitest run\` takes (files, -t, --project, …)`, 'E_USAGE')
  }
  const { filter, options } = first === 'related' ? parse(['vitest', 'related', ...rest]) : parse(['vitest', 'run', ...args])
  if (options.standalone === true && filter.length > 0) delete options.standalone
  for (const [flag, instead] of NOT_A_RUN) {
    const value = options[flag]
    if (value !== undefined && value !== false) throw new FlakeproofError(`--${flag}: ${instead}`, 'E_USAGE')
  }
  if (options.exclude !== undefined) {
    options.cliExclude = [options.exclude].flat()
    delete options.exclude
  }
  if (filter.some((f) => f.includes(':'))) options.includeTaskLocation ??= true
  if (typeof options.typecheck?.only === 'boolean') options.typecheck.enabled ??= true
  return { filter, options: { ...options, watch: false, run: true } }
}

/**
 * The environment `vitest run` gives its config and its tests (`prepareVitest`): without it Vite set
 * NODE_ENV to 'development' and VITEST was unset, so code that reads them ran differently under
 * `flakeproof vitest` than under `vitest run`. Before `createVitest`, which loads the config.
 */
export function setVitestEnv(env: NodeJS.ProcessEnv): void {
  env.TEST = 'true'
  env.VITEST = 'true'
  env.NODE_ENV ??= 'test'
}

/**
 * The packages `vitest run` makes sure of before any test runs (its `startVitest` and
 * `prepareVitest`): the coverage provider's when coverage is on, which stops the run when missing
 * (Vitest's "MISSING DEPENDENCY" line, exit 1; without the check, a stack trace), and the root
 * environment's, which Vitest names as missing and runs on (each file then fails to start).
 */
export function packagesVitestNeeds(config: { coverage?: { enabled?: boolean; provider?: string }; environment?: string }): { coverage?: string | undefined; environment?: string | undefined } {
  return {
    coverage: config.coverage?.enabled === true ? COVERAGE_PACKAGES[config.coverage.provider ?? 'v8'] : undefined,
    environment: config.environment === undefined ? undefined : ENVIRONMENT_PACKAGES[config.environment],
  }
}

// --- internal ---

/** Vitest's CoverageProviderMap: a custom provider is a module of the user's, not a package to check. */
const COVERAGE_PACKAGES: Readonly<Record<string, string>> = { v8: '@vitest/coverage-v8', istanbul: '@vitest/coverage-istanbul' }

/** Vitest's envPackageNames (getEnvPackageName); another name is `vitest-environment-<name>` or a path, which Vitest loads itself. */
const ENVIRONMENT_PACKAGES: Readonly<Record<string, string>> = { jsdom: 'jsdom', 'happy-dom': 'happy-dom', 'edge-runtime': '@edge-runtime/vm' }

/** Vitest's commands other than `run` and `related`: a first argument Vitest would read as one, not as a file filter. */
const NOT_A_RUN_COMMANDS: readonly string[] = ['watch', 'dev', 'bench', 'list', 'init']

/** Vitest's options for what is not one run of the tests, and what to do instead. */
const NOT_A_RUN: ReadonlyArray<readonly [keyof CliOptions, string]> = [
  ['watch', 'flakeproof vitest runs the tests once, as `vitest run`; leave it out'],
  ['standalone', 'flakeproof vitest runs the tests once, as `vitest run`; leave it out'],
  ['mergeReports', 'merging Vitest blob reports runs no test; run `npx vitest --mergeReports` itself, or merge flakeproof folders with `npx flakeproof merge`'],
  ['clearCache', 'clearing Vitest\'s cache runs no test; run `npx vitest --clearCache` first'],
  ['listTags', 'listing tags runs no test; run `npx vitest --listTags` itself'],
]
