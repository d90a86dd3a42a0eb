/**
 * The adapter surface inside a runner's workers (Vitest's runner, Jest's setup file, a Playwright
 * fixture): the only module of flakeproof's that adapter code running in workers imports. It reaches
 * pure src/core modules and the journal (node:fs) only — no zod, no pipeline — so worker start-up and
 * the cost per repetition stay low (test/unit/layering.test.ts checks what it reaches). The hints
 * (src/core/hints.ts) are adapter.ts's: no worker suggests a command, and Vitest loads this module
 * again in each test file's worker.
 */
export * from './page.js'
export { JournalWriter } from '../artifacts/journal.js'
export type { EnforcedTest } from '../pipeline/enforcement.js'
export type { TestEvidence } from '../pipeline/test-evidence.js'
