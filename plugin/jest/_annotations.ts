import { createRequire } from 'node:module'

interface AnnotatedResult {
  fullName: string
  failureMessages: string[]
  retryReasons?: string[]
}
interface AnnotatedFile {
  testResults: AnnotatedResult[]
}
/** Jest's GitHubActionsReporter (`@jest/reporters`, 29.4 on and 30): its annotations of one file's results. */
interface GitHubActionsReporter {
  prototype: { generateAnnotations(test: unknown, result: AnnotatedFile): void }
}

/**
 * Jest's `github-actions` reporter annotates every failure message of every test result, and each
 * copy of a measurement is a result: one broken test at `--flaky-repeat 20` made 20 error
 * annotations, and GitHub shows 10 a step, so the rest (flakeproof's own among them) went unseen.
 * Until the returned stop, that reporter sees each test's first failed copy and first retried one
 * only: one annotation per test, as Vitest's reporter makes. Every copy stays in Jest's other
 * reporters and in facts.jsonl; flakeproof's annotations give the rates. The prototype is Jest's
 * own (`@jest/reporters` from the project's `@jest/core`, the module Jest builds its reporters
 * from), as `_reporter-errors.ts` wraps BaseReporter's.
 */
export function annotateOncePerTest(core: string): () => void {
  const reporters = createRequire(core)('@jest/reporters') as { GitHubActionsReporter?: GitHubActionsReporter }
  const proto = reporters.GitHubActionsReporter?.prototype
  if (typeof proto?.generateAnnotations !== 'function') return () => {}
  const before = Object.getOwnPropertyDescriptor(proto, 'generateAnnotations')
  const generateAnnotations = proto.generateAnnotations
  proto.generateAnnotations = function (this: unknown, test: unknown, result: AnnotatedFile) {
    generateAnnotations.call(this, test, { ...result, testResults: oncePerTest(result.testResults) })
  }
  return () => {
    if (before) Object.defineProperty(proto, 'generateAnnotations', before)
  }
}

/** The results an annotation comes from, each test's first failed and first retried copy (often one result). */
export function oncePerTest<T extends AnnotatedResult>(results: readonly T[]): T[] {
  const failed = new Set<string>()
  const retried = new Set<string>()
  return results.filter((r) => {
    const fails = r.failureMessages.length > 0 && !failed.has(r.fullName)
    const retries = (r.retryReasons?.length ?? 0) > 0 && !retried.has(r.fullName)
    if (fails) failed.add(r.fullName)
    if (retries) retried.add(r.fullName)
    return fails || retries
  })
}
