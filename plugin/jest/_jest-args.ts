import { FlakeproofError } from '../../src/session/adapter.js'

/**
 * Refuses what Jest's CLI does instead of one run of the tests (watching, listing, showing the config,
 * clearing the cache, writing one): flakeproof measures one run, and under `--watchAll` the
 * process never ended. Checked on Jest's own parse of the arguments before any test runs, and on
 * the config Jest read (`watch: true` there watches too), before its first test.
 */
export function refuseNotARun(values: Readonly<Record<string, unknown>>, where: 'arguments' | 'config'): void {
  for (const [flag, instead] of NOT_A_RUN) {
    if (values[flag] !== true) continue
    throw new FlakeproofError(`${where === 'config' ? `${flag}: true in the Jest config` : `--${flag}`}: ${instead}`, 'E_USAGE')
  }
}

// --- internal ---

/** Jest's options for what is not one run of the tests, and what to do instead (`init`: Jest 29's; Jest 30 refuses it itself). */
const NOT_A_RUN: ReadonlyArray<readonly [string, string]> = [
  ['watch', 'flakeproof jest runs the tests once, as `jest` does without it; leave it out'],
  ['watchAll', 'flakeproof jest runs the tests once, as `jest` does without it; leave it out'],
  ['listTests', 'listing the test files runs no test; run `npx jest --listTests` itself'],
  ['showConfig', 'showing the config runs no test; run `npx jest --showConfig` itself'],
  ['clearCache', "clearing Jest's cache runs no test; run `npx jest --clearCache` first"],
  ['init', 'writing a config runs no test; run `npx jest --init` itself'],
]
