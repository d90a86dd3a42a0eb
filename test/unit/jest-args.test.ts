import { describe, expect, it } from 'vitest'
import { refuseNotARun } from '../../plugin/jest/_jest-args.js'

// What `flakeproof jest` refuses before any test runs: Jest's modes that are not one run of the tests,
// on Jest's parse of the arguments (buildArgv) and on the config it read. test/e2e/wrapped-as-native.test.ts
// runs two of them through the CLI.
describe('refuseNotARun', () => {
  it.each([
    [{ watch: true }, 'arguments', '--watch: flakeproof jest runs the tests once'],
    [{ watchAll: true }, 'arguments', '--watchAll: flakeproof jest runs the tests once'],
    [{ listTests: true }, 'arguments', '--listTests: listing the test files runs no test'],
    [{ showConfig: true }, 'arguments', '--showConfig: showing the config runs no test'],
    [{ clearCache: true }, 'arguments', "--clearCache: clearing Jest's cache runs no test"],
    [{ init: true }, 'arguments', '--init: writing a config runs no test'],
    [{ watch: true }, 'config', 'watch: true in the Jest config: flakeproof jest runs the tests once'],
  ] as const)('refuses %j in the %s', (values, where, message) => {
    expect(() => refuseNotARun(values, where)).toThrow(expect.objectContaining({ code: 'E_USAGE', message: expect.stringContaining(message) }))
  })

  it.each([
    // `--watch=false`, `--no-watchAll`, and what buildArgv leaves unset.
    [{ watch: false, watchAll: false }],
    [{ listTests: undefined, ci: true, silent: true }],
    [{}],
  ])('lets %j run', (values) => {
    expect(() => refuseNotARun(values, 'arguments')).not.toThrow()
  })
})
