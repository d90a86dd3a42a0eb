import type { TestCase, TestModule } from 'vitest/node'
import type { EverydayResult } from '../../src/session/adapter.js'
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
      results.push({
        id,
        project: identity.project,
        file: identity.file,
        name: testCase.fullName,
        failed: state === 'failed' || testCase.meta().flakeproofEnforced?.state === 'failed',
        retries: diagnostic?.retryCount ?? 0,
        flaky: diagnostic?.flaky === true,
        durationMs: diagnostic?.duration ?? 0,
      })
    }
  }
  return results
}
