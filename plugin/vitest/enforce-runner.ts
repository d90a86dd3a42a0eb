import { relative } from 'node:path'
import type { File, Test } from '@vitest/runner'
import * as vitest from 'vitest'
import { assignTestIds, messageOf } from '../../src/session/worker.js'
import type { EnforceOptions } from './_enforce-protocol.js'
import { allTests, namesOf } from './_recorder.js'
import { Base } from './runner.js'

interface WorkerConfig {
  root: string
  name?: string
}

interface BaseRunner {
  onCollected?(files: File[]): unknown
  onAfterRunTask?(test: Test): unknown
}

/**
 * Vitest runner for `--flaky-enforce` (docs/contracts.md §9): each test gets exactly the retries the
 * committed policy gives it (none when unlisted, so no blanket `retry` hides a new failure), and a
 * quarantined test that failed is turned into a pass once it ends, its errors kept on its meta for
 * the reporter: it ran and is reported, but cannot turn the run red.
 */
export default class EnforceRunner extends (Base as unknown as new (config: WorkerConfig) => BaseRunner) {
  private readonly _options: EnforceOptions
  private readonly _quarantined: Set<string>
  private readonly _root: string
  private readonly _project: string
  private readonly _ids = new Map<string, string>()

  constructor(config: WorkerConfig) {
    super(config)
    const options: EnforceOptions | undefined = vitest.inject('flakeproofEnforce')
    if (!options) throw new Error('flakeproof: this runner is set up by the plugin; add `flakeproof()` to `plugins` instead of setting `test.runner`')
    this._options = options
    this._quarantined = new Set(options.quarantined)
    this._root = config.root
    this._project = config.name ?? ''
  }

  override onCollected(files: File[]): unknown {
    for (const file of files) {
      const tests = allTests([file])
      const path = relative(this._root, file.filepath).split('\\').join('/')
      const ids = assignTestIds(tests.map((t) => ({ project: this._project, file: path, path: namesOf(t) })))
      tests.forEach((test, i) => {
        const id = ids[i] as string
        this._ids.set(test.id, id)
        test.retry = this._options.retries[id] ?? 0
      })
    }
    return super.onCollected?.(files)
  }

  override onAfterRunTask(test: Test): unknown {
    const id = this._ids.get(test.id)
    const result = test.result
    if (id !== undefined && result && (result.state === 'pass' || result.state === 'fail') && (id in this._options.retries || this._quarantined.has(id))) {
      const errors = [...new Set((result.errors ?? []).map((e) => messageOf(e).split('\n')[0] as string))]
      test.meta.flakeproofEnforced = { id, state: result.state === 'pass' ? 'passed' : 'failed', retries: result.retryCount ?? 0, errors }
      if (this._quarantined.has(id) && result.state === 'fail') {
        result.state = 'pass'
        result.errors = undefined
      }
    }
    return super.onAfterRunTask?.(test)
  }
}
