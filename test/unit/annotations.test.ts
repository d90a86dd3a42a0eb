import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import { annotated, annotateOncePerTest } from '../../plugin/jest/_annotations.js'

// Jest's own github-actions reporter (the repository's Jest 30), which `flakeproof/jest/reporter`
// makes annotate once per test during a measurement. test/e2e/jest-rounds.test.ts runs it through
// the CLI under GITHUB_ACTIONS.
const require = createRequire(import.meta.url)
const core = require.resolve('@jest/core')
const { GitHubActionsReporter } = createRequire(core)('@jest/reporters') as { GitHubActionsReporter: new (config: object, options: object) => Annotating }
interface Annotating {
  log(line: string): void
  generateAnnotations(test: unknown, result: { testResults: Result[] }): void
}
interface Result {
  ancestorTitles: string[]
  title: string
  fullName: string
  status: string
  failureMessages: string[]
}

const copy = (title: string, failure?: string, status = failure ? 'failed' : 'passed'): Result => ({
  ancestorTitles: [],
  title,
  fullName: title,
  status,
  failureMessages: failure ? [`Error: ${failure}\n    at Object.<anonymous> (/repo/tests/a.test.js:3:11)`] : [],
})

/** The annotations Jest's reporter prints for one file's results, as `::type title=…::message` heads. */
function annotationsOf(results: Result[]): string[] {
  const reporter = new GitHubActionsReporter({}, { silent: true })
  const lines: string[] = []
  reporter.log = (line) => lines.push(line.trim().split('%0A')[0] ?? '')
  reporter.generateAnnotations({ context: { config: { rootDir: '/repo' } } }, { testResults: results })
  return lines.map((l) => l.replace(/ file=[^,]*,line=[^,]*,/, ' '))
}

const MEASURE = { flaky: false }
const PROOF = { flaky: true }

describe('annotated', () => {
  it.each([
    ['20 failed copies of one test', Array.from({ length: 20 }, () => copy('broken', 'boom')), MEASURE, [0]],
    ['a flaky test in a measurement: its rate is flakeproof’s warning', [copy('flaky'), copy('flaky', 'first'), copy('flaky', 'second')], MEASURE, []],
    ['a flaky test in a proof or under --flaky-fail-on-flaky: it fails the run', [copy('flaky'), copy('flaky', 'first'), copy('flaky', 'second')], PROOF, [1]],
    ['two broken tests, each twice', [copy('a', '1'), copy('b', '1'), copy('a', '2'), copy('b', '2')], MEASURE, [0, 1]],
    ['a skipped copy is no pass', [copy('s', undefined, 'pending'), copy('s', 'x'), copy('s', 'y')], MEASURE, [1]],
    ['no failure', [copy('ok'), copy('ok')], MEASURE, []],
  ] as const)('%s', (_, results, failsRun, kept) => {
    expect(annotated(results, failsRun)).toEqual(kept.map((i) => results[i]))
  })
})

describe("annotateOncePerTest on Jest's GitHubActionsReporter", () => {
  const copies = [copy('broken', 'boom 1'), copy('broken', 'boom 2'), copy('flaky'), copy('flaky', 'late')]

  it('annotates each test that fails the run once while on, every copy again once stopped', () => {
    expect(annotationsOf(copies)).toHaveLength(3)
    const stop = annotateOncePerTest(core, MEASURE)
    try {
      expect(annotationsOf(copies)).toEqual(['::error title=broken::boom 1'])
    } finally {
      stop()
    }
    expect(annotationsOf(copies)).toHaveLength(3)
  })

  it("puts Jest's method back on the prototype, even after a run that never took its wrapper off", () => {
    const generateAnnotations = GitHubActionsReporter.prototype.generateAnnotations
    annotateOncePerTest(core, MEASURE)()
    expect(Object.hasOwn(GitHubActionsReporter.prototype, 'generateAnnotations')).toBe(true)
    expect(GitHubActionsReporter.prototype.generateAnnotations).toBe(generateAnnotations)
    // A run that ended before onRunComplete left its wrapper on: the next wraps Jest's own method, and puts it back.
    annotateOncePerTest(core, MEASURE)
    const stop = annotateOncePerTest(core, PROOF)
    expect(annotationsOf(copies)).toEqual(['::error title=broken::boom 1', '::error title=flaky::late'])
    stop()
    expect(GitHubActionsReporter.prototype.generateAnnotations).toBe(generateAnnotations)
  })

  it('leaves a Jest without the reporter as it is', () => {
    expect(() => annotateOncePerTest('/nowhere/node_modules/@jest/core/build/index.js', MEASURE)()).not.toThrow()
  })
})
