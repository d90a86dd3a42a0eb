import type { TestProject } from 'vitest/node'
import { appendJournal, FlakeproofError, type JournalLine, ownFile } from '../../src/session/adapter.js'
import { JOURNAL_COMMAND } from './_browser-protocol.js'

/** The page's side of the recording runner (browser-recorder.ts, built beside this file). */
const BROWSER_RECORDER = ownFile('plugin/vitest/browser-recorder.js')

/** Vitest's own pools whose workers load `test.runner`: flakeproof's runner reaches every test there. */
const RUNNER_POOLS = new Set(['forks', 'threads', 'vmForks', 'vmThreads'])

/**
 * Vitest versions whose browser mode keeps its runner and its commands where browser-recorder.ts
 * finds them (`window.__vitest_browser_runner__`): read in the sources of 3.2.7, 4.0.18, 4.1.12 and
 * 5.x, run on those the suite installs (docs/vitest.md).
 */
const BROWSER_VERSIONS = /^(?:3\.[2-9]\.|[45]\.)/

/** How a project's tests run, for the runner flakeproof gives it. */
export type Reach = 'workers' | 'browser'

/**
 * Where a project's tests run, or a FlakeproofError naming the project and why flakeproof's
 * `runner` (`recording`, or the `enforcing` one of --flaky-enforce) would never see them: tests it
 * cannot reach would run once, outside every file, and the run would look measured. Called for
 * every project before any test runs.
 */
export function reachOf(project: TestProject, vitestVersion: string, runner: 'recording' | 'enforcing'): Reach {
  const who = project.name ? `project "${project.name}"` : 'this project'
  const config = project.config as { pool?: unknown; poolMatchGlobs?: [string, string][]; browser?: { enabled?: boolean } }
  const leaveOut = project.name ? `, or leave it out with --project <another project>` : ''
  if (config.browser?.enabled) {
    if (runner === 'enforcing') {
      throw new FlakeproofError(`--flaky-enforce does not reach the tests of ${who}, which run in Vitest's browser mode; enforce the policy on the other projects${leaveOut}`, 'E_USAGE')
    }
    if (!BROWSER_VERSIONS.test(vitestVersion)) {
      throw new FlakeproofError(`the tests of ${who} run in the browser mode of Vitest ${vitestVersion}, where flakeproof cannot record (Vitest 3.2 to 5), so they would be measured as nothing; use Vitest 3.2 to 5${leaveOut}`, 'E_USAGE')
    }
    return 'browser'
  }
  const pools = [config.pool, ...(config.poolMatchGlobs ?? []).map(([, pool]) => pool)].filter((pool) => pool !== undefined && pool !== 'typescript')
  const custom = pools.find((pool) => typeof pool !== 'string' || !RUNNER_POOLS.has(pool))
  if (custom !== undefined) {
    throw new FlakeproofError(
      `the tests of ${who} run in the custom pool ${JSON.stringify(String(custom))}, whose workers may never load flakeproof's runner, so they could be measured as nothing; run them in one of Vitest's pools (forks, threads, vmForks, vmThreads, or browser mode)${leaveOut}`,
      'E_USAGE',
    )
  }
  return 'workers'
}

/** Where the journal of the run under way is, for the command below (set by recordInBrowser). */
const JOURNAL_DIR = Symbol.for('flakeproof.browser.journal')

/**
 * The browser commands flakeproof adds: its plugin returns them from its `config` hook, Vitest's way
 * for a plugin to provide commands, so the browser server has them from the start. The command is
 * found through a global because Vite bundles a user's config with its own copy of this module.
 */
export const BROWSER_COMMANDS = { [JOURNAL_COMMAND]: writeJournal }

/**
 * Sets up a browser-mode project: the recorder is its first setup file (browser mode ignores
 * `test.runner`), the journal command writes what each page sends into the run's journal (a file per
 * browser session, as a worker has its own), and no failure screenshot is taken.
 */
export function recordInBrowser(project: TestProject, journalDir: string): void {
  ;(globalThis as Record<symbol, unknown>)[JOURNAL_DIR] = journalDir
  const { setupFiles, browser } = project.config
  if (!setupFiles.includes(BROWSER_RECORDER)) setupFiles.unshift(BROWSER_RECORDER)
  // Vitest screenshots a failed test into the project (`__screenshots__`, `.vitest-attachments`)
  // after each of its repetitions, since a failed state sticks: a measurement writes nothing of the
  // user's, and ~140 ms of screenshot per repetition would be timed as the test's own.
  browser.screenshotFailures = false
  // Projects whose config files the plugin's `config` hook never saw (`flakeproof vitest` on a
  // monorepo): Vitest 3.2 and 4 build the browser server later, from the project, or with
  // `browser.instances` from the project listing them (`_parent`); 5 has built it already.
  const internal = project as { _parent?: { config: TestProject['config'] }; config: { _browserContribution?: { parent?: { registerCommand?: (name: string, command: unknown) => void } } } }
  for (const config of [project.config, internal._parent?.config]) {
    if (config) config.browser.commands = { ...config.browser.commands, ...BROWSER_COMMANDS }
  }
  internal.config._browserContribution?.parent?.registerCommand?.(JOURNAL_COMMAND, writeJournal)
}

// --- internal ---

/** Appends the lines a page sent to its session's journal file. */
function writeJournal(context: { sessionId: string }, lines: JournalLine[]): void {
  const dir = (globalThis as Record<symbol, unknown>)[JOURNAL_DIR]
  if (typeof dir !== 'string') throw new Error('flakeproof: a browser page sent journal lines, but no measurement is under way in this process')
  if (!Array.isArray(lines)) throw new Error('flakeproof: a browser page sent journal lines that are not a list')
  appendJournal(dir, `browser-${context.sessionId.replace(/[^\w-]/g, '_')}`, lines)
}
