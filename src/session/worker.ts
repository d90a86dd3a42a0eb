/**
 * The adapter surface inside a runner's workers (Vitest's runner, Jest's setup file, a Playwright
 * fixture): the only module of flakeproof's that adapter code running in workers imports. It reaches
 * pure src/core modules and the journal (node:fs) only — no zod, no pipeline — so worker start-up and
 * the cost per repetition stay low (test/unit/layering.test.ts checks what it reaches).
 */
export { forJournal, type JournalRepetition, JournalWriter } from '../artifacts/journal.js'
export { stripAnsi } from '../core/ansi.js'
export { CAPTURE_LIMIT, cap, messageOf } from '../core/evidence.js'
export { type HintContext, type Hints, hintsFor } from '../core/hints.js'
export { measuringModeOf, type Repetition, type RepetitionMode } from '../core/repetition.js'
export { assignTestIds, formatTestId, type TestIdentity } from '../core/test-id.js'
export type { EnforcedTest } from '../pipeline/enforcement.js'
export type { TestEvidence } from '../pipeline/test-evidence.js'
