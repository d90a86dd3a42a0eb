/**
 * The adapter surface for code that runs where there is no `node:*` at all — Vitest's browser mode
 * runs the recorder inside the page and hands its journal lines to the Node side through a browser
 * command. Pure src/core and the journal's line format only; src/session/worker.ts adds the journal's
 * writer for code in Node workers (test/unit/layering.test.ts checks what each reaches).
 */
export { forJournal, JOURNAL_ERROR_LIMIT, type JournalLine, type JournalRepetition } from '../artifacts/journal-line.js'
export { stripAnsi } from '../core/ansi.js'
export { CAPTURE_LIMIT, cap, failureOf, messageOf } from '../core/evidence.js'
export { signatureOfError, signatureOfText } from '../core/signature.js'
export { measuringModeOf, type PairOrder, pairOrder, type Repetition, type RepetitionMode } from '../core/repetition.js'
export { assignTestIds, formatTestId, type TestIdentity, type TestMode } from '../core/test-id.js'
