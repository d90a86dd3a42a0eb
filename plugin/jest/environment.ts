import { createRequire } from 'node:module'
import { join } from 'node:path'
import { attachRepeat, type Handler } from './_repeat.js'

/** What Jest hands a test environment's constructor (29 and 30): the slices read here. */
interface EnvironmentConfig {
  projectConfig: { rootDir: string; displayName?: { name?: string } | string; testEnvironmentOptions?: Record<string, unknown> }
}
interface TestEnvironment {
  global: unknown
  handleTestEvent?: Handler
}
type EnvironmentClass = new (config: EnvironmentConfig, context: unknown) => TestEnvironment

/**
 * `testEnvironment: 'flakeproof/jest/environment'` with `testEnvironmentOptions: { flakeproofBase }`
 * (docs/contracts.md §12): the project's own environment (`node`, `jsdom`, a path), made as it
 * would be, with flakeproof's repetition as its circus event handler. Jest 29 reads an environment's
 * `handleTestEvent` but gives setup files no handler list. Kept for configs that name it;
 * `testRunner: 'flakeproof/jest/runner'` does the same for any environment, docblocks included.
 */
export default class FlakeproofEnvironment {
  constructor(config: EnvironmentConfig, context: unknown) {
    const { rootDir, displayName, testEnvironmentOptions = {} } = config.projectConfig
    const Base = loadEnvironment(rootDir, String(testEnvironmentOptions.flakeproofBase ?? 'node'))
    const environment = new Base(config, context)
    // Read by circus once, when the file starts: set before the constructor returns.
    attachRepeat(environment, { project: (typeof displayName === 'string' ? displayName : displayName?.name) ?? '' })
    // A constructor may return another object: Jest then uses the project's environment itself.
    return environment as unknown as FlakeproofEnvironment
  }
}

// --- internal ---

/** Jest's names (`node`, `jsdom`) are the packages `jest-environment-<name>`; anything else is resolved from the project. */
function loadEnvironment(rootDir: string, name: string): EnvironmentClass {
  const require = createRequire(join(rootDir, 'package.json'))
  let path: string
  try {
    path = require.resolve(`jest-environment-${name}`)
  } catch {
    path = require.resolve(name)
  }
  const loaded = require(path) as { default?: EnvironmentClass; TestEnvironment?: EnvironmentClass } | EnvironmentClass
  const Base = typeof loaded === 'function' ? loaded : (loaded.TestEnvironment ?? loaded.default)
  if (typeof Base !== 'function') throw new Error(`flakeproof/jest/environment: ${path} exports no test environment class (testEnvironmentOptions.flakeproofBase ${JSON.stringify(name)})`)
  return Base
}
