import type { Vitest } from 'vitest/node'
import { loadEnforcement, ownFile, type ResolvedVitestOptions, resolveOutDir } from '../../src/session/adapter.js'
import type { EnforceOptions } from './_enforce-protocol.js'
import EnforceReporter from './enforce-reporter.js'

export const ENFORCE_RUNNER = ownFile('plugin/vitest/enforce-runner.js')

/**
 * `--flaky-enforce`: the enforcing runner on every project with each listed test's retry budget and
 * the quarantined ids (from the session's `loadEnforcement`, which refuses a missing policy before
 * any test), and the enforcement reporter after the user's reporters.
 */
export function installEnforcement(vitest: Vitest, resolved: ResolvedVitestOptions, command: string): EnforceReporter {
  const enforcement = loadEnforcement(vitest.config.root, resolved)
  const options: EnforceOptions = { retries: enforcement.retries, quarantined: enforcement.quarantined }
  for (const project of vitest.projects) {
    project.config.runner = ENFORCE_RUNNER
    project.provide('flakeproofEnforce', options)
  }
  const historyOutDir = resolved.history ? resolveOutDir(vitest.config.root, resolved) : undefined
  return new EnforceReporter({ enforcement, updatePolicy: resolved.updatePolicy, command, historyOutDir, base: resolved.base })
}
