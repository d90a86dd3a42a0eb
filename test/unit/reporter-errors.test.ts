import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import { type JestBaseReporter, watchReporterErrors } from '../../plugin/jest/_reporter-errors.js'

// Jest's own BaseReporter (the repository's Jest 30), which its coverage reporter extends: what
// `flakeproof jest` watches so that an unmet coverage threshold beside failed copies is never advisory.
// test/e2e/jest-evidence.test.ts runs it through the CLI on a real threshold.
const { BaseReporter, CoverageReporter } = createRequire(import.meta.url)('@jest/reporters') as { BaseReporter: JestBaseReporter & (new () => Erring); CoverageReporter: JestBaseReporter }
interface Erring {
  _setError(error: Error): void
  getLastError(): unknown
}

describe('watchReporterErrors', () => {
  it.each([
    ['no reporter errs', [], false],
    ['one reporter errs', [new Error('threshold not met')], true],
  ] as const)('%s: failed is %s, and each reporter still returns its own error to Jest', (_, errors, failed) => {
    const watch = watchReporterErrors(BaseReporter)
    try {
      const reporters = [new BaseReporter(), ...errors.map((error) => {
        const reporter = new BaseReporter()
        reporter._setError(error)
        return reporter
      })]
      expect(reporters.map((r) => r.getLastError())).toEqual([undefined, ...errors])
      expect(watch.failed).toBe(failed)
    } finally {
      watch.stop()
    }
  })

  it("puts Jest's method back: the coverage reporter inherits BaseReporter's again", () => {
    const getLastError = BaseReporter.prototype.getLastError
    watchReporterErrors(BaseReporter).stop()
    expect(Object.hasOwn(BaseReporter.prototype, 'getLastError')).toBe(true)
    expect(BaseReporter.prototype.getLastError).toBe(getLastError)
    expect(CoverageReporter.prototype.getLastError).toBe(getLastError)
  })

  it('watches nothing without a BaseReporter (a Jest that has none)', () => {
    const watch = watchReporterErrors(undefined)
    watch.stop()
    expect(watch.failed).toBe(false)
  })
})
