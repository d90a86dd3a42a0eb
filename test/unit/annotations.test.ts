import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import { annotateOncePerTest, oncePerTest } from '../../plugin/jest/_annotations.js'

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
  retryReasons?: string[]
}

const copy = (title: string, failure?: string, retryReasons?: string[]): Result => ({
  ancestorTitles: [],
  title,
  fullName: title,
  status: failure ? 'failed' : 'passed',
  failureMessages: failure ? [`Error: ${failure}\n    at Object.<anonymous> (/repo/tests/a.test.js:3:11)`] : [],
  ...(retryReasons ? { retryReasons } : {}),
})

/** The annotations Jest's reporter prints for one file's results, as `::type title=…::message` heads. */
function annotationsOf(results: Result[]): string[] {
  const reporter = new GitHubActionsReporter({}, { silent: true })
  const lines: string[] = []
  reporter.log = (line) => lines.push(line.trim().split('%0A')[0] ?? '')
  reporter.generateAnnotations({ context: { config: { rootDir: '/repo' } } }, { testResults: results })
  return lines.map((l) => l.replace(/ file=[^,]*,line=[^,]*,/, ' '))
}

describe('oncePerTest', () => {
  it.each([
    ['20 failed copies of one test', Array.from({ length: 20 }, () => copy('broken', 'boom')), [0]],
    ['a flaky test: pass, fail, fail', [copy('flaky'), copy('flaky', 'first'), copy('flaky', 'second')], [1]],
    ['two tests, each failing twice', [copy('a', '1'), copy('b', '1'), copy('a', '2'), copy('b', '2')], [0, 1]],
    ['retried copies: the first retried and the first failed', [copy('r', undefined, ['x']), copy('r', undefined, ['y']), copy('r', 'z', ['w'])], [0, 2]],
    ['no failure', [copy('ok'), copy('ok')], []],
  ] as const)('%s: keeps results %j', (_, results, kept) => {
    expect(oncePerTest(results)).toEqual(kept.map((i) => results[i]))
  })
})

describe("annotateOncePerTest on Jest's GitHubActionsReporter", () => {
  const copies = [copy('broken', 'boom 1'), copy('broken', 'boom 2'), copy('flaky'), copy('flaky', 'late')]

  it('annotates each failed test once while on, every copy again once stopped', () => {
    expect(annotationsOf(copies)).toHaveLength(3)
    const stop = annotateOncePerTest(core)
    try {
      expect(annotationsOf(copies)).toEqual(['::error title=broken::boom 1', '::error title=flaky::late'])
    } finally {
      stop()
    }
    expect(annotationsOf(copies)).toHaveLength(3)
  })

  it("puts Jest's method back on the prototype", () => {
    const generateAnnotations = GitHubActionsReporter.prototype.generateAnnotations
    annotateOncePerTest(core)()
    expect(Object.hasOwn(GitHubActionsReporter.prototype, 'generateAnnotations')).toBe(true)
    expect(GitHubActionsReporter.prototype.generateAnnotations).toBe(generateAnnotations)
  })
})
