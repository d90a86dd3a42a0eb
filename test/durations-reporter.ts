import { appendFileSync } from 'node:fs'
import { relative } from 'node:path'
import type { Reporter, TestModule } from 'vitest/node'

/**
 * One JSON line per test file to `file`: how long the file took, its environment, set-up, import,
 * hooks and tests (the JSON reporter's times leave hooks out, where the installs are). `.ci/run`
 * prints the slowest of them.
 */
export default class DurationsReporter implements Reporter {
  private readonly _file: string

  constructor({ file }: { file: string }) {
    this._file = file
  }

  onTestModuleEnd(module: TestModule): void {
    const d = module.diagnostic()
    const ms = d.environmentSetupDuration + d.prepareDuration + d.collectDuration + d.setupDuration + d.duration
    appendFileSync(this._file, `${JSON.stringify({ file: relative(process.cwd(), module.moduleId), ms: Math.round(ms) })}\n`)
  }
}
