import { realpathSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { FlakeproofError } from '../../src/session/adapter.js'

/** flakeproof's own files, as Jest loads them. */
export const REPORTER = fileURLToPath(new URL('./reporter.js', import.meta.url))
export const SETUP = fileURLToPath(new URL('./setup.cjs', import.meta.url))
export const ENVIRONMENT = fileURLToPath(new URL('./environment.js', import.meta.url))

export type Reporter = string | [string, Record<string, unknown>]
export interface JestArgv {
  reporters?: Reporter[]
  setupFilesAfterEnv?: string[]
  projects?: string[]
  [key: string]: unknown
}
/** The programmatic entry points of the `jest` package (29 and 30). */
export interface JestPackage {
  getVersion(): string
  buildArgv(args: string[]): Promise<JestArgv>
  runCLI(argv: JestArgv, projects: string[]): Promise<{ results: JestResults; globalConfig: { testFailureExitCode: number } }>
}
export interface JestConfig {
  readConfigs(argv: JestArgv, projects: string[]): Promise<{ globalConfig: { rootDir?: string; reporters?: Reporter[] }; configs: ProjectConfig[] }>
}
export interface ProjectConfig {
  setupFilesAfterEnv: string[]
  testEnvironment: string
  testEnvironmentOptions?: Record<string, unknown>
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
}

/** The project's Jest (not ours): `jest`, and `jest-config` as its CLI resolves it. */
export function loadJest(cwd: string): LoadedJest {
  let jestPath: string
  try {
    jestPath = createRequire(join(cwd, 'package.json')).resolve('jest')
  } catch {
    throw new FlakeproofError('Jest is not installed here; `npm i -D jest` (29 or 30)', 'E_USAGE')
  }
  const fromJest = createRequire(jestPath)
  const cliPath = fromJest.resolve('jest-cli')
  const cli = createRequire(cliPath)
  const main = fromJest(jestPath) as JestPackage
  // Jest 30 exports buildArgv from `jest`; 29 keeps it in jest-cli's run.js.
  const buildArgv = main.buildArgv ?? (cli(join(dirname(cliPath), 'run.js')) as Partial<JestPackage>).buildArgv
  const jest: JestPackage = { getVersion: main.getVersion, runCLI: main.runCLI, buildArgv }
  const config = cli(cli.resolve('jest-config')) as JestConfig
  if (typeof jest.buildArgv !== 'function' || typeof jest.runCLI !== 'function') {
    throw new FlakeproofError(`the Jest at ${dirname(jestPath)} has no buildArgv/runCLI; flakeproof jest supports Jest 29 and 30`, 'E_USAGE')
  }
  return { jest, config }
}

/** The user listed flakeproof's own file already (any copy of this package): it is not added twice. */
export function isOurs(path: string, ours: string): boolean {
  if (/flakeproof\/jest\/(reporter|setup)$/.test(path)) return true
  try {
    return realpathSync(path) === realpathSync(ours)
  } catch {
    return false
  }
}
