import type { FlakeproofVitestOptions, ReportedTest, RunError, TestLocation } from '../../src/session/adapter.js'

/**
 * How `flakeproof playwright` talks to the reporter it adds to each Playwright run (`--add-reporter`):
 * what the run is for, in this environment variable (JSON), and the reporter's translated events
 * back over the IPC channel of the child process. The session lives in flakeproof's process, so
 * whole-run rounds and a proof's several runs are one measurement; each copy is sent as it ends,
 * so a Playwright that dies mid-run loses nothing that finished.
 */
export const PLAYWRIGHT_ENV = 'FLAKEPROOF_PLAYWRIGHT'

/** What one Playwright run started by the wrapper is for. */
export type ChildTask =
  /** List the selection (`--list`): each test's id and the grep that selects exactly it. */
  | { task: 'list' }
  /** Run and send each test's evidence: repetitions of a measurement (`fast`) or of a proof (`proof`). */
  | { task: 'forward'; mode: 'fast' | 'proof' }
  /** An everyday or enforced run: the reporter runs the session itself, with these options. */
  | { task: 'local'; options: FlakeproofVitestOptions; command: string }

/** A test of the selection, as the list run saw it. */
export interface ListedTest {
  id: string
  project: string
  /** A regular expression matching this test's Playwright title (project, file, suites, name, tags) and, by design, no other's. */
  grep: string
}

/** The reporter's events, in the order they happen. */
export type ChildMessage =
  /** The run began: the project root (the config's folder) and the workers Playwright resolved. */
  | { kind: 'begin'; root: string; workers: number }
  | { kind: 'listed'; tests: ListedTest[] }
  /** A copy of a test (`repeatEachIndex`) ran its last attempt: its evidence, one repetition (none when skipped). */
  | { kind: 'copy'; id: string; copy: number; test: ReportedTest; location: TestLocation }
  | {
      kind: 'end'
      /** Each file's id prefix (`[project] file`) and every test id the run selected. */
      modules: string[]
      tests: string[]
      runErrors: RunError[]
      /** Stopped by the user, a global timeout or --max-failures: not every copy ran. */
      interrupted: boolean
      /** Playwright failed the run only because tests failed (no error outside tests). */
      onlyTestsFailed: boolean
    }
