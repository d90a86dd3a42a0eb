import { realpathSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname } from 'node:path'
import { FlakeproofError, ownFile } from '../../src/session/adapter.js'
import { jestCliRun, jestModules } from './_jest-modules.js'
import type { JestBaseReporter } from './_reporter-errors.js'

/** The project's own Jest as flakeproof drives it: its entry points, its configs, flakeproof's files in them. */

export const REPORTER = ownFile('plugin/jest/reporter.js')
export const RUNNER = ownFile('plugin/jest/runner.js')
export const SETUP = ownFile('plugin/jest/setup.cjs')
export const ENVIRONMENT = ownFile('plugin/jest/environment.js')

export type Reporter = string | [string, Record<string, unknown>]
export interface JestArgv {
  reporters?: Reporter[]
  projects?: string[]
  [key: string]: unknown
}
/** The programmatic entry points of the `jest` package (29 and 30). */
export interface JestPackage {
  getVersion(): string
  buildArgv(args: string[]): Promise<JestArgv>
  runCLI(argv: JestArgv, projects: string[]): Promise<{ results: JestResults; globalConfig: JestGlobalConfig }>
}
/** What flakeproof reads of the global config runCLI used. */
export interface JestGlobalConfig {
  testFailureExitCode: number
  forceExit?: boolean
  detectOpenHandles?: boolean
  /** Jest 30: how long after the run it says that something keeps the process open (0: never). */
  openHandlesTimeout?: number
}
export interface ReadConfigs {
  globalConfig: { rootDir: string; reporters?: Reporter[]; watch?: boolean; watchAll?: boolean }
  configs: ProjectConfig[]
}
/** jest-config's exports, as @jest/core's runCLI reads them when it is called. */
export interface JestConfig {
  readConfigs(argv: JestArgv, projects: string[]): Promise<ReadConfigs>
}
export interface ProjectConfig {
  id: string
  testRunner: string
  setupFilesAfterEnv?: string[]
  testEnvironment?: string
}

/** What of Jest's aggregated result tells failed tests from Jest's other reasons to fail, and the time in them. */
export interface JestResults {
  success: boolean
  numFailedTests: number
  numRuntimeErrorTestSuites: number
  snapshot: { failure: boolean }
  testResults: { perfStats?: { start?: number; end?: number } }[]
}

export interface LoadedJest {
  jest: JestPackage
  config: JestConfig
  /** The project's jest-circus/runner: a project using it needs no entry in the runners map. */
  circus: string
  /** Jest's BaseReporter, from the @jest/reporters its @jest/core runs (plugin/jest/_reporter-errors.ts). */
  reporterBase: JestBaseReporter | undefined
}

/** The project's Jest (not ours): `jest`, and `jest-config` as its runCLI resolves it. */
export function loadJest(cwd: string): LoadedJest {
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
  const { BaseReporter } = createRequire(modules.core)('@jest/reporters') as { BaseReporter?: JestBaseReporter }
  return { jest, config, circus: modules.circus, reporterBase: typeof BaseReporter?.prototype?.getLastError === 'function' ? BaseReporter : undefined }
}

/** One of flakeproof's own Jest files (any copy of this package), as a config names it or as a path. */
export function isOurs(path: string, ours: string): boolean {
  if (/flakeproof\/jest\/(reporter|runner|setup|environment)$/.test(path)) return true
  try {
    return realpathSync(path) === realpathSync(ours)
  } catch {
    return false
  }
}
