import type { TestCase, TestModule } from 'vitest/node'
import { type EverydayResult, signatureOfError, signatureOfText } from '../../src/session/adapter.js'
import type {} from './_enforce-protocol.js'

/**
 * An ordinary Vitest run (no repetitions) as the session's everyday results (docs/contracts.md §11):
 * one per test that ran. An enforced run (`enforced`) is an ordinary run too; a quarantined test's
 * failure, which its runner turned into a pass, is the failure it was. Undefined when the plugin's
 * runner repeats tests in this process (a reporter listed by path stays beside it): no everyday run.
 */
export function vitestEverydayResults(
  modules: ReadonlyArray<TestModule>,
  idOf: (testCase: TestCase) => { id: string; identity: { project: string; file: string } },
  enforced = false,
): EverydayResult[] | undefined {
  if (!enforced && (globalThis as Record<symbol, unknown>)[Symbol.for('flakeproof.vitest.installed')]) return undefined
  const results: EverydayResult[] = []
  for (const module of modules) {
    for (const testCase of module.children.allTests()) {
      const { state } = testCase.result()
      if (state !== 'passed' && state !== 'failed') continue
      const diagnostic = testCase.diagnostic()
      const { id, identity } = idOf(testCase)
      const failed = state === 'failed' || testCase.meta().flakeproofEnforced?.state === 'failed'
      const retries = diagnostic?.retryCount ?? 0
      const flaky = diagnostic?.flaky === true
      // A test that failed, or passed only on a retry: the way it failed (its first error).
      const signature = failed || retries > 0 || flaky ? signatureOfTestCase(testCase) : undefined
      results.push({
        id,
        project: identity.project,
        file: identity.file,
        name: testCase.fullName,
        failed,
        retries,
        flaky,
        durationMs: diagnostic?.duration ?? 0,
        ...(signature === undefined ? {} : { signature }),
      })
    }
  }
  return results
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
