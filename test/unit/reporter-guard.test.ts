import { describe, expect, it, vi } from 'vitest'
import FlakeproofReporter from '../../plugin/vitest/reporter.js'

describe("the reporter's guard", () => {
  it('reports an error of its own once and never throws into Vitest', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    const reporter = new FlakeproofReporter()
    // A test case missing everything a real one has: every hook must survive it.
    const broken = {} as never
    expect(() => reporter.onTestCaseResult(broken)).not.toThrow()
    expect(() => reporter.onTestCaseResult(broken)).not.toThrow()
    expect(() => reporter.onTestRunEnd([broken], [], 'passed')).not.toThrow()
    expect(warn).toHaveBeenCalledTimes(1)
    expect(String(warn.mock.calls[0]?.[0])).toContain('[flakeproof] internal error in onTestCaseResult')
    warn.mockRestore()
  })
})
