/**
 * The adapter surface in a runner's main process: the only module of flakeproof's that a runner
 * adapter (plugin/<runner>/) imports outside its workers (there: src/session/worker.ts, re-exported
 * here). What an adapter does — translate its runner's events, make ids, run once — it does with
 * these; everything else is the session's (docs/architecture.md).
 */
export * from './worker.js'
export { escapeRegExp, type HintContext, type Hints, hintsFor } from '../core/hints.js'

// The adapter interface and the session it feeds.
export type { ProcessEnding, RunnerAdapter, RunOnce, RunOutcome } from './runner-adapter.js'
export { type RunEnd, type RunEnding, type RunShape, type SessionHost, type SessionSettings, type TestLocation, TestSession } from './test-session.js'
export { type ProofSelection, selectProof } from './proof-selection.js'
export { assignmentSeedOf } from './assignment-seed.js'
export { type Enforcement, finishEnforcedRun, loadEnforcement } from './enforcement-run.js'
export { type EverydayResult, recordEverydayRun } from './everyday-history.js'
export { attributeRedRun, failedOf } from './attribution-run.js'
export { CONDITION_ENV, type FreshRounds, planRounds, type RoundsReporter } from './rounds.js'
export { shownFolder, warning } from './run-end-text.js'
export { runWrapper } from './wrapper.js'
export { startFailure } from './start-failure.js'
export { ownFile } from '../own-files.js'

// What the runners are, and their options.
export { type Capability, CAPABILITIES } from '../config/capabilities.js'
export { renderRunnerFlags, resolveRunnerOptions, RUNNERS, type RunnerInfo, type RunnerName, runnerFlags, takenOptions } from '../config/runners.js'
export {
  argsAfterSeparator,
  type FlakeproofVitestOptions,
  type ResolvedVitestOptions,
  resolveJunitPath,
  resolveOutDir,
  VitestOptionsSchema,
} from '../config/vitest-options.js'
// Options are parsed once per run: interpreted (src/_zod.ts).
export { ONE_PARSE } from '../_zod.js'
export { FLAKEPROOF_ERROR, FlakeproofError, flakeproofErrorIn, inOneLine, isFlakeproofError, oneLineError } from '../errors.js'

// The output folder, before a run: held for the run, the journal's place, a path that must be writable.
export { appendJournal, JournalReader, type JournalTest } from '../artifacts/journal.js'
export { acquireOutputLock, type OutputLock } from '../artifacts/lock.js'
export { discardRunDir, prepareRunDir, type RunDir, runDirOf } from '../artifacts/run-dir.js'
export type { RunError } from '../artifacts/test-schemas.js'
export { assertAllReplaceable, assertReplaceable } from '../artifacts/write.js'
export { MEASUREMENT_FILES } from '../artifacts/write-bundle.js'
export { inGithubActions, logLine } from '../core/workflow-command.js'
export { startLoad } from '../runner/load.js'

// What the session is fed.
export type { PlannedRound } from '../pipeline/conditions.js'
export type { ReportedTest } from '../pipeline/test-evidence.js'
export type { Collected } from '../pipeline/test-run.js'
