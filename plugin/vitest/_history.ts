import type { TestCase, TestModule } from 'vitest/node'
import { signatureOfError, signatureOfText } from '../../src/core/signature.js'
import { type HistoryTest, recordHistory } from '../../src/pipeline/history-record.js'
import type {} from './_enforce-protocol.js'

/**
 * An ordinary Vitest run (no repetitions) as history (docs/contracts.md §11): one record per test
 * that ran. A test that passed only after Vitest's `retry` is `flaky`: the retry hid a failure. An
 * enforced run (`enforced`) is an ordinary run too; a quarantined test's failure, which its runner
 * turned into a pass, is recorded as the failure it was.
 */
export function recordVitestHistory(
  outDir: string,
  root: string,
  modules: ReadonlyArray<TestModule>,
  idOf: (testCase: TestCase) => { id: string; identity: { project: string; file: string } },
  enforced = false,
): string | undefined {
  // The plugin's runner repeats tests in this process (a reporter listed by path stays beside it): no everyday run.
  if (!enforced && (globalThis as Record<symbol, unknown>)[Symbol.for('flakeproof.vitest.installed')]) return undefined
  const tests: HistoryTest[] = []
  for (const module of modules) {
    for (const testCase of module.children.allTests()) {
      const { state } = testCase.result()
      if (state !== 'passed' && state !== 'failed') continue
      const diagnostic = testCase.diagnostic()
      const retries = diagnostic?.retryCount ?? 0
      const failed = state === 'failed' || testCase.meta().flakeproofEnforced?.state === 'failed'
      const outcome = failed ? 'failed' : retries > 0 || diagnostic?.flaky === true ? 'flaky' : 'passed'
      const { id, identity } = idOf(testCase)
      const signature = outcome === 'passed' ? undefined : signatureOfTestCase(testCase)
      tests.push({
        id,
        project: identity.project,
        file: identity.file,
        name: testCase.fullName,
        outcome,
        retries,
        durationMs: diagnostic?.duration ?? 0,
        ...(signature === undefined ? {} : { signature }),
      })
    }
  }
  return recordHistory(outDir, tests, { root, env: process.env, now: new Date() })
}

/** The tests of a run that failed (a quarantined failure the enforcing runner turned into a pass included), with their signatures. */
export function failedTestsOf(modules: ReadonlyArray<TestModule>, idOf: (testCase: TestCase) => { id: string }): { id: string; signature: string | null }[] {
  const failed: { id: string; signature: string | null }[] = []
  for (const module of modules) {
    for (const testCase of module.children.allTests()) {
      if (testCase.result().state !== 'failed' && testCase.meta().flakeproofEnforced?.state !== 'failed') continue
      failed.push({ id: idOf(testCase).id, signature: signatureOfTestCase(testCase) ?? null })
    }
  }
  return failed
}

/**
 * The signature of a test case's first error (its stack read relative to its project's root); a
 * quarantined failure the enforcing runner turned into a pass has only the first lines it kept.
 */
export function signatureOfTestCase(testCase: TestCase): string | undefined {
  const first = testCase.result().errors?.[0]
  if (first) return signatureOfError(first, testCase.project.config.root)
  const kept = testCase.meta().flakeproofEnforced?.errors[0]
  return kept === undefined ? undefined : signatureOfText(kept)
}
