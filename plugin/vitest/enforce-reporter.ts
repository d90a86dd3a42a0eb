import pc from 'picocolors'
import type { Reporter, TestCase, TestModule, TestRunEndReason, Vitest } from 'vitest/node'
import { type CommittedPolicy, CommittedPolicySchema } from '../../src/artifacts/committed-policy-schema.js'
import { writeJsonAtomic } from '../../src/artifacts/write.js'
import { type EnforcedTest, judgeEnforcedRun, listQuarantined } from '../../src/pipeline/enforcement.js'
import { publishEnforcementToGithub } from '../../src/pipeline/github.js'
import type {} from './_enforce-protocol.js'
import { renderEnforcement } from './_enforce-text.js'
import { failedTestsOf, recordVitestHistory } from './_history.js'
import { attributeVitestRun } from './_attribution.js'
import { TestIds } from './_test-ids.js'
import { REPORTER_BRAND } from './reporter.js'

export interface EnforceReporterOptions {
  /** The committed policy as read before the run, and where it lives (shown relative). */
  policy: CommittedPolicy
  policyPath: string
  shownPath: string
  /** Write new quarantines and failed-run counts back into the policy file. */
  updatePolicy: boolean
  /** Record the run in `<outDir>/history/` (docs/contracts.md §11); undefined: history is off. */
  historyOutDir: string | undefined
}

/**
 * Reports an enforced run (docs/contracts.md §9) after Vitest's own summary: listed tests that used
 * their retries or failed beyond them, quarantined tests with their evidence, and proposals. With
 * `updatePolicy` it writes the policy back. It never changes the exit code: Vitest decides it, and
 * the runner already made quarantined failures passes.
 */
export default class EnforceReporter implements Reporter {
  readonly [REPORTER_BRAND] = true
  private readonly _options: EnforceReporterOptions
  private _vitest: Vitest | undefined
  private _seen: EnforcedTest[] = []
  private readonly _ids = new TestIds()

  constructor(options: EnforceReporterOptions) {
    this._options = options
  }

  onInit(vitest: Vitest): void {
    this._vitest = vitest
  }

  onTestRunStart(): void {
    this._seen = []
  }

  onTestCaseResult(testCase: TestCase): void {
    const enforced = testCase.meta().flakeproofEnforced
    if (enforced) this._seen.push(enforced)
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>, _errors: ReadonlyArray<unknown>, reason: TestRunEndReason): void {
    try {
      this._end()
      // An enforced run is an everyday run: it goes into history, as a plain one would (not watch mode's reruns).
      const { historyOutDir } = this._options
      if (historyOutDir && reason !== 'interrupted' && this._vitest?.config.watch !== true) {
        // Judged against its history before joining it (docs/attribution.md).
        const root = this._vitest?.config.root ?? process.cwd()
        const { policy, policyPath } = this._options
        const where = { outDir: historyOutDir, root, policyPath, policy, options: { confidence: policy.confidence, base: undefined } }
        attributeVitestRun(failedTestsOf(modules, (t) => this._ids.of(t)), where, (line) => this._log(line))
        recordVitestHistory(historyOutDir, this._vitest?.config.root ?? process.cwd(), modules, (t) => this._ids.of(t), true)
      }
    } catch (error) {
      // A reporter never takes the run down: the tests' own results stand.
      this._log(pc.yellow(`[flakeproof] enforcement not reported: ${error instanceof Error ? error.message : String(error)}`))
    }
  }

  // --- internal ---

  private _end(): void {
    const { policy, policyPath, shownPath, updatePolicy } = this._options
    const today = new Date().toISOString().slice(0, 10)
    const { results, proposed, updated } = judgeEnforcedRun(policy, this._seen, today)
    const quarantined = listQuarantined(policy, results)
    const changed = JSON.stringify(updated) !== JSON.stringify(policy)
    if (updatePolicy && changed) writeJsonAtomic(policyPath, CommittedPolicySchema, updated)
    this._log('')
    for (const line of renderEnforcement(shownPath, results, quarantined, proposed, updatePolicy)) this._log(line)
    const root = this._vitest?.config.root ?? process.cwd()
    for (const line of publishEnforcementToGithub({ policyPath: shownPath, root, results, quarantined, proposed, written: updatePolicy }, process.env)) this._log(line)
  }

  private _log(line: string): void {
    if (this._vitest) this._vitest.logger.log(line)
    else console.log(line)
  }
}
