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
 * Modes that run no test, or never end, are refused: flakeproof measures one `vitest run`.
 */
export function vitestRunArgs(parse: typeof parseCLI, args: readonly string[]): { filter: string[]; options: CliOptions } {
  const { filter, options } = parse(['vitest', 'run', ...args])
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
 * `prepareVitest`): the coverage provider's when coverage is on, the root environment's. Missing,
 * Vitest says "MISSING DEPENDENCY" in one line and exits 1, where running on ended in a stack trace
 * (coverage) or a worker that failed to start per file (environment).
 */
export function packagesVitestNeeds(config: { coverage?: { enabled?: boolean; provider?: string }; environment?: string }): string[] {
  const coverage = config.coverage?.enabled === true ? COVERAGE_PACKAGES[config.coverage.provider ?? 'v8'] : undefined
  const environment = config.environment === undefined ? undefined : ENVIRONMENT_PACKAGES[config.environment]
  return [coverage, environment].filter((name) => name !== undefined)
}

// --- internal ---

/** Vitest's CoverageProviderMap: a custom provider is a module of the user's, not a package to check. */
const COVERAGE_PACKAGES: Readonly<Record<string, string>> = { v8: '@vitest/coverage-v8', istanbul: '@vitest/coverage-istanbul' }

/** Vitest's envPackageNames (getEnvPackageName); another name is `vitest-environment-<name>` or a path, which Vitest loads itself. */
const ENVIRONMENT_PACKAGES: Readonly<Record<string, string>> = { jsdom: 'jsdom', 'happy-dom': 'happy-dom', 'edge-runtime': '@edge-runtime/vm' }

/** Vitest's options for what is not one run of the tests, and what to do instead. */
const NOT_A_RUN: ReadonlyArray<readonly [keyof CliOptions, string]> = [
  ['watch', 'flakeproof vitest runs the tests once, as `vitest run`; leave it out'],
  ['standalone', 'flakeproof vitest runs the tests once, as `vitest run`; leave it out'],
  ['mergeReports', 'merging Vitest blob reports runs no test; run `npx vitest --mergeReports` itself, or merge flakeproof folders with `npx flakeproof merge`'],
  ['clearCache', 'clearing Vitest\'s cache runs no test; run `npx vitest --clearCache` first'],
  ['listTags', 'listing tags runs no test; run `npx vitest --listTags` itself'],
]
