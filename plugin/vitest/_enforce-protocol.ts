/**
 * What the plugin tells the enforcing runner, and what the runner hands the enforcement reporter on
 * each listed test's meta. Plain data only: it crosses Vitest's RPC.
 */
import type { EnforcedTest } from '../../src/session/worker.js'

declare module '@vitest/runner' {
  interface TaskMeta {
    /** Set by the enforcing runner when a test ends. */
    flakeproofEnforced?: EnforcedTest
  }
}
declare module 'vitest' {
  interface ProvidedContext {
    /** Provided by the plugin in enforce mode, read by the enforcing runner in each worker. */
    flakeproofEnforce: EnforceOptions
  }
}

export interface EnforceOptions {
  /** Vitest's `retry` per listed test id; every other test gets 0. */
  retries: Record<string, number>
  /** Ids of quarantined tests: their failures do not fail the run. */
  quarantined: string[]
}
