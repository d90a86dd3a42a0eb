import type { Reporter, TestCase, TestModule, TestRunEndReason, Vitest } from 'vitest/node'
import { attributeRedRun, type EnforcedTest, type Enforcement, failedOf, finishEnforcedRun, logLine, recordEverydayRun, RUNNERS, warning } from '../../src/session/adapter.js'
import type {} from './_enforce-protocol.js'
import { vitestEverydayResults } from './_history.js'
import { TestIds } from './_test-ids.js'
import { REPORTER_BRAND } from './reporter.js'

export interface EnforceReporterOptions {
  /** The committed policy as read before the run (src/session/enforcement-run.ts). */
  enforcement: Enforcement
  /** Write new quarantines and failed-run counts back into the policy file. */
  updatePolicy: boolean
  /** How the run was started: its hints are in the same form. */
  command: string
  /** Record the run in `<outDir>/history/` (docs/contracts.md §11); undefined: history is off. */
  historyOutDir: string | undefined
  /** `--flaky-base`: the branch whose history attribution prefers. */
  base?: string | undefined
}

/**
 * Reports an enforced run (docs/contracts.md §9) after Vitest's own summary, through the session's
 * `finishEnforcedRun`: the listed tests each enforcing runner handed back on their meta. It never
 * changes the exit code: Vitest decides it, and the runner already made quarantined failures passes.
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
    const root = this._vitest?.config.root ?? process.cwd()
    try {
      const { enforcement, updatePolicy, command } = this._options
      for (const line of finishEnforcedRun(enforcement, this._seen, { root, updatePolicy, runner: RUNNERS.vitest, command })) this._log(line)
      // An enforced run is an everyday run: it goes into history, as a plain one would (not watch mode's reruns).
      const { historyOutDir } = this._options
      if (historyOutDir && reason !== 'interrupted' && this._vitest?.config.watch !== true) {
        const results = vitestEverydayResults(modules, (t) => this._ids.of(t), true) ?? []
        // Judged against its history before joining it, by the committed policy as it was before the run (docs/attribution.md).
        const run = { runner: RUNNERS.vitest, outDir: historyOutDir, root, policyPath: enforcement.path, policy: enforcement.policy, confidence: enforcement.policy.confidence, base: this._options.base }
        for (const line of attributeRedRun(failedOf(results), run).lines) this._log(logLine(line, process.env))
        recordEverydayRun(RUNNERS.vitest, historyOutDir, root, results)
      }
    } catch (error) {
      // A reporter never takes the run down: the tests' own results stand.
      this._log(logLine(warning(`[flakeproof] enforcement not reported: ${error instanceof Error ? error.message : String(error)}`), process.env))
    }
  }

  // --- internal ---

  private _log(line: string): void {
    if (this._vitest) this._vitest.logger.log(line)
    else console.log(line)
  }
}
