import type { RunnerInfo } from '../config/runners.js'
import type { ResolvedVitestOptions } from '../config/vitest-options.js'

/** What one whole run of the runner came to. */
export interface RunOutcome {
  /** The exit code the runner (and flakeproof's raising of it) decided. */
  code: number
  /** The output folder it wrote to, absolute. */
  outDir: string
  /** Time in tests and their hooks, summed over every file: what each repetition adds, without start-up. */
  testTimeMs: number
  /**
   * What the runner's CLI does when its tests or set-up keep the process open after the run: Jest's
   * `forceExit` ends it at once, `vitest run` after its `teardownTimeout` with a warning, `jest`
   * warns after its `openHandlesTimeout` and waits on. Without it an in-band test's timer or a
   * global setup's server kept flakeproof running forever, or silently.
   */
  ending?: ProcessEnding
}

export interface ProcessEnding {
  afterMs: number
  /** Said on stderr when the process is still there after the wait. */
  warning?: string
  /** Whether the process then ends (with the run's code). */
  exits: boolean
}

/** How `flakeproof <runner>` ended: its exit code, and how the runner's CLI would end the process. */
export type WrapperEnd = Pick<RunOutcome, 'code' | 'ending'>

/** One whole run with the recording runner installed and these options (undefined: a plain run). */
export type RunOnce = (options: ResolvedVitestOptions | undefined) => Promise<RunOutcome>

/**
 * A test runner's adapter (plugin/<runner>/): only what the runner knows. The session
 * (src/session/) does the rest the same way for every runner — options and the flags an adapter
 * lacks, budget, rounds' plan, recording, verdicts, proof selection and verdict, enforcement's
 * judgement, printing, GitHub, JUnit, history, quarantine release, and every hint, in the runner's
 * own syntax (src/core/hints.ts).
 *
 * The adapter provides:
 * - `runner`: its name and capabilities (src/config/runners.ts): a flag needing one it lacks is refused;
 * - `version`: the runner's version, for hints in its own syntax (Jest's `--randomize` from 29.5);
 * - `prepare`: for `flakeproof <runner> [--flaky-*] [runner args]`, a check of the runner's own
 *   arguments (flakeproof's flags already taken out) and the function that runs once;
 * - a reporter that translates the runner's events onto a TestSession (src/session/test-session.ts):
 *   `begin`, `record(id, ReportedTest)` for each test's result with its evidence, `end` with the
 *   collected ids, the run errors and how the run ended; ids from src/core/test-id.ts; in workers,
 *   only src/session/worker.ts.
 */
export interface RunnerAdapter {
  readonly runner: RunnerInfo
  /** The runner's version in this project, when it can be read without running it: hints depend on it. */
  version?(): string | undefined
  prepare(runnerArgs: readonly string[], command: string): Promise<RunOnce>
}
