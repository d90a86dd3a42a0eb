import { relative, resolve } from 'node:path'
import pc from 'picocolors'
import type { UserConsoleLog } from 'vitest'
import type { Reporter, TestCase, TestModule, TestRunEndReason, Vitest } from 'vitest/node'
import { type ResolvedVitestOptions, VitestOptionsSchema } from '../../src/config/vitest-options.js'
import { fractionFromNumber } from '../../src/core/fraction.js'
import { FlakeproofError } from '../../src/errors.js'
import type { ReportedTest, TestEvidence } from '../../src/pipeline/test-evidence.js'
import { type TestOutcome, type TestRunResult, TestRunRecorder } from '../../src/pipeline/test-run.js'
import { formatTestId, META_KEY } from './_protocol.js'
import { renderTable } from './_table.js'

/** Marks instances, so a second copy of this module (Vite's bundle of the config) recognises them. */
export const REPORTER_BRAND = Symbol.for('flakeproof.vitest.reporter')

/** Options of the reporter: the plugin's, plus what the plugin decided (mode, proof selection). */
export interface ReporterOptions extends Partial<ResolvedVitestOptions> {
  /** Set by the plugin: whether the recording runner is active, and in which mode. */
  runnerMode?: 'measure' | 'proof'
  /** Set by the plugin in proof mode: test id → repetitions required. */
  proofRuns?: Record<string, number>
  /** How the run was started, for the files' `command`. */
  command?: string
}

/**
 * Writes flakeproof's files for a Vitest run (CONTRACTS §4) and prints flaky and broken tests with
 * their counts, intervals and the runs a fix must pass. With the plugin's runner it sees every
 * repetition; used alone (`reporters: ['default', 'flakeproof/reporter']`) it records one execution
 * per test.
 */
export default class FlakeproofReporter implements Reporter {
  readonly [REPORTER_BRAND] = true
  private readonly _options: ResolvedVitestOptions & ReporterOptions
  private _vitest: Vitest | undefined
  private _recorder: TestRunRecorder | undefined
  private readonly _console = new Map<string, { stdout: string; stderr: string }>()

  constructor(options: ReporterOptions = {}) {
    const { runnerMode, proofRuns, command, ...rest } = options
    const parsed = VitestOptionsSchema.safeParse(rest)
    if (!parsed.success) throw new FlakeproofError(`flakeproof/reporter: ${parsed.error.issues[0]?.message ?? 'invalid options'}`, 'E_USAGE')
    this._options = { ...parsed.data, runnerMode, proofRuns, command }
  }

  onInit(vitest: Vitest): void {
    this._vitest = vitest
  }

  onTestRunStart(): void {
    // Watch mode starts several runs: each gets its own files.
    this._console.clear()
    const { runnerMode, repeat, observe, confidence, proofRuns, command } = this._options
    this._recorder = this._degradeGracefully(
      () =>
        new TestRunRecorder(this._outDir(), {
          mode: runnerMode ?? 'single',
          command: command ?? 'vitest run',
          repeat: runnerMode === 'measure' ? (repeat ?? 1) : 1,
          observe: runnerMode === 'measure' && observe,
          confidence: { value: confidence, exact: fractionFromNumber(confidence) },
          proofRuns: proofRuns ?? {},
          lang: 'en',
        }),
    )
  }

  onUserConsoleLog(log: UserConsoleLog): void {
    if (this._options.runnerMode || !log.taskId) return
    const buffer = this._console.get(log.taskId) ?? { stdout: '', stderr: '' }
    buffer[log.type] = (buffer[log.type] + log.content).slice(0, 8 * 1024)
    this._console.set(log.taskId, buffer)
  }

  onTestCaseResult(testCase: TestCase): void {
    const test = this._toReported(testCase)
    if (test) this._recorder?.record(test)
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>, _errors: unknown, reason: TestRunEndReason): void {
    if (!this._recorder) return
    const collected = new Set(modules.map((m) => this._relativeFile(m.project.config.root, m.moduleId)))
    const recorder = this._recorder
    this._recorder = undefined
    const result = this._degradeGracefully(() => recorder.finish(reason !== 'interrupted', collected))
    if (!result) return
    this._print(result)
    if (result.proof && !result.proof.passed) process.exitCode = 1
  }

  // --- internal ---

  /**
   * A reporter does not break the test run over its own files: it warns and writes nothing. A proof
   * that cannot record its verdict still fails the run.
   */
  private _degradeGracefully<T>(run: () => T): T | undefined {
    try {
      return run()
    } catch (error) {
      if (!(error instanceof FlakeproofError)) throw error
      const message = pc.yellow(`[flakeproof] no files written: ${error.message}`)
      if (this._vitest) this._vitest.logger.warn(message)
      else console.warn(message)
      if (this._options.runnerMode === 'proof') process.exitCode = 1
      return undefined
    }
  }

  private _outDir(): string {
    return resolve(this._vitest?.config.root ?? process.cwd(), this._options.outDir)
  }

  private _relativeFile(root: string, file: string): string {
    return relative(root, file).split('\\').join('/')
  }

  private _toReported(testCase: TestCase): ReportedTest | undefined {
    const project = testCase.project.name
    const file = this._relativeFile(testCase.project.config.root, testCase.module.moduleId)
    const name = testCase.fullName
    const recorded = testCase.meta()[META_KEY as keyof ReturnType<TestCase['meta']>] as TestEvidence | undefined
    if (recorded) return { project, file, name, evidence: recorded }
    const result = testCase.result()
    if (this._options.runnerMode || result.state === 'skipped' || result.state === 'pending') return undefined
    const output = this._console.get(testCase.id)
    this._console.delete(testCase.id)
    const error = result.errors?.[0]?.message
    return {
      project,
      file,
      name,
      evidence: {
        id: formatTestId(project, file, name),
        order: 1,
        previousTest: null,
        worker: 'main',
        seed: null,
        repetitions: [
          {
            ok: result.state === 'passed',
            elapsedMs: Math.round((testCase.diagnostic()?.duration ?? 0) * 100) / 100,
            ...(error === undefined ? {} : { error }),
            ...(output ? { stdout: output.stdout, stderr: output.stderr } : {}),
            mode: 'single',
            gapMs: 0,
          },
        ],
      },
    }
  }

  private _print(result: TestRunResult): void {
    const log = (line: string): void => (this._vitest ? this._vitest.logger.log(line) : console.log(line))
    const concerning = result.tests.filter((o: TestOutcome) => o.verdict !== 'stable')
    log('')
    const shown = relative(process.cwd(), result.dir)
    const where = shown === '' ? '.' : shown.startsWith('..') ? result.dir : shown
    log(pc.bold(pc.cyan(' flakeproof ')) + pc.dim(`${result.tests.length} test(s), files in ${where}`))
    if (result.proof) {
      const proven = Object.entries(result.proof.tests ?? {})
      for (const [id, p] of proven) {
        const status = p.status === 'ran' ? `${p.trials}/${p.required} runs, ${p.failures} failed` : p.status
        log(`  ${p.passed ? pc.green('✓') : pc.red('✗')} ${id}  ${pc.dim(status)}`)
      }
      log(result.proof.passed ? pc.green('  proof passed') : pc.red(`  proof FAILED${proven.length === 0 ? ': no test was flaky in the last policy.json' : ''}`))
      return
    }
    if (concerning.length === 0) log(pc.green('  no flaky or broken test'))
    else for (const line of renderTable(concerning)) log(line)
  }
}
