/**
 * What the Node side (plugin/vitest/_browser.ts) and the page (browser-recorder.ts) of Vitest's
 * browser mode agree on. Plain data only: it is imported on both sides of the boundary.
 */

/** The browser command the page sends its journal lines through (letters and `_` only, as Vitest requires). */
export const JOURNAL_COMMAND = '__flakeproof_journal'
