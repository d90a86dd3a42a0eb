import { createRequire } from 'node:module'
import { REPEAT_ENV, type RepeatOptions } from './_protocol.js'
import { jestModules } from './_jest-modules.js'
import { attachRepeat, type RepeatEnvironment } from './_repeat.js'

/** What Jest hands a test runner (jest-runner's `testFramework(...)`, Jest 29 and 30): the slices read here. */
interface ProjectConfig {
  id: string
  rootDir: string
  displayName?: { name?: string } | string
}
type TestFramework = (globalConfig: unknown, config: ProjectConfig, environment: RepeatEnvironment, runtime: unknown, testPath: string, send: unknown) => Promise<unknown>

/**
 * `testRunner: 'flakeproof/jest/runner'` (docs/jest.md): the project's own test runner (jest-circus
 * unless `flakeproof jest` found another), with flakeproof's repetition added to the test environment
 * Jest made for this file — whatever it is: the project's, a `@jest-environment` docblock's, jsdom —
 * before circus reads its `handleTestEvent`. The project (`displayName`) goes into the ids.
 * `flakeproof jest` sets it on every project; it does nothing more than the runner it wraps unless
 * FLAKEPROOF_JEST asks for copies.
 */
export default async function flakeproofRunner(globalConfig: unknown, config: ProjectConfig, environment: RepeatEnvironment, runtime: unknown, testPath: string, send: unknown): Promise<unknown> {
  const raw = process.env[REPEAT_ENV]
  const options = raw ? (JSON.parse(raw) as RepeatOptions) : undefined
  attachRepeat(environment, { project: projectOf(config), testPath })
  return load(options?.runners[config.id] || options?.circus || circusOf(config.rootDir))(globalConfig, config, environment, runtime, testPath, send)
}

// --- internal ---

/** A project's name as Jest shows it (`displayName`, a string or `{ name, color }`); '' when unnamed. */
function projectOf(config: ProjectConfig): string {
  const name = typeof config.displayName === 'string' ? config.displayName : config.displayName?.name
  return name ?? ''
}

function circusOf(rootDir: string): string {
  const modules = jestModules(rootDir)
  if (!modules) throw new Error(`flakeproof/jest/runner: no Jest installed at ${rootDir}`)
  return modules.circus
}

/** jest-circus/runner is CommonJS (`module.exports = jestAdapter`); a custom runner may export `default`. */
function load(path: string): TestFramework {
  const loaded = createRequire(import.meta.url)(path) as TestFramework | { default: TestFramework }
  return typeof loaded === 'function' ? loaded : loaded.default
}
