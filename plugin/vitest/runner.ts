import { relative } from 'node:path'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { format } from 'node:util'
import type { File, Test } from '@vitest/runner'
import * as vitest from 'vitest'
import { JournalWriter } from '../../src/session/worker.js'
import type { RunnerOptions } from './_protocol.js'
import { Recorder } from './_recorder.js'

// 4.1+ exports the class as `TestRunner`; 3.2 and 4.0 only from `vitest/runners` (removed in 5).
type RunnerClass = (new (config: never) => Record<string, unknown>) & { getTestFn?: TestFnGetter }
type TestFnGetter = (test: Test) => () => unknown
export const Base: RunnerClass =
  ((vitest as Record<string, unknown>).TestRunner as RunnerClass | undefined) ??
  ((await import('vitest/runners' as string)) as { VitestTestRunner: RunnerClass }).VitestTestRunner
// 4.1 deprecates `vitest/suite` in favour of the runner's static methods; 3.2 and 4.0 only have it.
const getTestFn: TestFnGetter = Base.getTestFn ?? ((await import('vitest/suite' as string)) as { getFn: TestFnGetter }).getFn

interface WorkerConfig {
  root: string
  name?: string
  sequence?: { seed?: number; shuffle?: unknown }
}

/**
 * Vitest runner (Node workers) that records every repetition of every test through the Recorder
 * (_recorder.ts), its journal written by this worker to a file of its own.
 */
export default class FlakeproofRunner extends (Base as unknown as new (config: WorkerConfig) => BaseRunner) {
  private readonly _recorder: Recorder

  constructor(config: WorkerConfig) {
    super(config)
    const options: RunnerOptions | undefined = vitest.inject('flakeproof')
    if (!options) throw new Error('flakeproof: this runner is set up by the plugin; add `flakeproof()` to `plugins` instead of setting `test.runner`')
    const journal = new JournalWriter(options.journalDir)
    this._recorder = new Recorder({
      options,
      project: config.name ?? '',
      seed: config.sequence?.shuffle ? (config.sequence.seed ?? null) : null,
      worker: process.env.VITEST_POOL_ID ?? String(process.pid),
      pid: process.pid,
      root: config.root,
      fileOf: (test) => relative(config.root, test.file.filepath).split('\\').join('/'),
      journal: (line) => journal.write(line),
      format: (args) => format(...args),
      nextTurn: () => nextTurn(),
    })
    const runTask = this._recorder.runTaskWith(getTestFn)
    if (runTask) (this as { runTask?: (test: Test) => Promise<void> }).runTask = runTask
  }

  override onCollected(files: File[]): unknown {
    this._recorder.collected(files)
    return super.onCollected?.(files)
  }

  override onBeforeRunTask(test: Test): unknown {
    this._recorder.beforeRunTask(test)
    return super.onBeforeRunTask?.(test)
  }

  override onBeforeTryTask(test: Test, options: { retry: number; repeats: number }): unknown {
    return this._recorder.beforeTryTask(test, () => super.onBeforeTryTask?.(test, options))
  }

  override onAfterRunTask(test: Test): unknown {
    this._recorder.afterRunTask(test)
    return super.onAfterRunTask?.(test)
  }
}

// --- internal ---

interface BaseRunner {
  onCollected?(files: File[]): unknown
  onBeforeRunTask?(test: Test): unknown
  onBeforeTryTask?(test: Test, options: { retry: number; repeats: number }): unknown
  onAfterRunTask?(test: Test): unknown
}
