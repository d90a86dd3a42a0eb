import { createRequire } from 'node:module'

interface AnnotatedResult {
  fullName: string
  status: string
  failureMessages: string[]
}
interface AnnotatedFile {
  testResults: AnnotatedResult[]
}
type GenerateAnnotations = ((test: unknown, result: AnnotatedFile) => void) & { [ORIGINAL]?: GenerateAnnotations }
/** Jest's GitHubActionsReporter (`@jest/reporters`, 29.4 on and 30): its annotations of one file's results. */
interface GitHubActionsReporter {
  prototype: { generateAnnotations: GenerateAnnotations }
}

/** On a wrapper: Jest's own method, so a wrapper a run never took off is replaced, not wrapped again. */
const ORIGINAL = Symbol('flakeproof: Jest generateAnnotations')

/**
 * Jest's `github-actions` reporter annotates every failure message of every test result, and each
 * copy of a measurement is a result: one broken test at `--flaky-repeat 20` made 20 error
 * annotations, and GitHub shows 10 a step, so the rest (flakeproof's own among them) went unseen.
 * Until the returned stop, that reporter sees what Vitest's reporter annotates: each test that fails
 * the run, once (its first failed copy). A test that passed some copies does not fail a measurement
 * (its rate is flakeproof's warning annotation) unless `failsRun` says so (a proof, --flaky-fail-on-flaky).
 * Every copy stays in Jest's other reporters and in facts.jsonl. The prototype is Jest's own
 * (`@jest/reporters` from the project's `@jest/core`, the module Jest builds its reporters from), as
 * `_reporter-errors.ts` wraps BaseReporter's; a Jest without it is left as it is.
 */
export function annotateOncePerTest(core: string, failsRun: { flaky: boolean }): () => void {
  let proto: GitHubActionsReporter['prototype'] | undefined
  try {
    proto = (createRequire(core)('@jest/reporters') as { GitHubActionsReporter?: GitHubActionsReporter }).GitHubActionsReporter?.prototype
  } catch {
    return () => {}
  }
  if (typeof proto?.generateAnnotations !== 'function') return () => {}
  const target = proto
  const original = target.generateAnnotations[ORIGINAL] ?? target.generateAnnotations
  const wrapper: GenerateAnnotations = function (this: unknown, test, result) {
    original.call(this, test, { ...result, testResults: annotated(result.testResults, failsRun) })
  }
  wrapper[ORIGINAL] = original
  target.generateAnnotations = wrapper
  return () => {
    if (target.generateAnnotations === wrapper) target.generateAnnotations = original
  }
}

/** The results Jest's reporter annotates: each failing test's first failed copy (a test whose copies all failed, or any under `flaky`). */
export function annotated<T extends AnnotatedResult>(results: readonly T[], failsRun: { flaky: boolean }): T[] {
  const passedOnce = new Set(failsRun.flaky ? [] : results.filter((r) => r.status === 'passed').map((r) => r.fullName))
  const seen = new Set<string>()
  return results.filter((r) => {
    if (r.failureMessages.length === 0 || passedOnce.has(r.fullName) || seen.has(r.fullName)) return false
    seen.add(r.fullName)
    return true
  })
}
