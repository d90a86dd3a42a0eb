import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { Vitest } from 'vitest/node'
import {
  acquireOutputLock,
  argsAfterSeparator,
  assertAllReplaceable,
  assertReplaceable,
  assignmentSeedOf,
  escapeRegExp,
  type FlakeproofVitestOptions,
  hintsFor,
  inGithubActions,
  inOneLine,
  MEASUREMENT_FILES,
  oneLineError,
  ownFile,
  type ProofSelection,
  type ResolvedVitestOptions,
  resolveJunitPath,
  resolveOutDir,
  resolveRunnerOptions,
  runDirOf,
  RUNNERS,
  selectProof,
} from '../../src/session/adapter.js'
import type { RunnerOptions } from './_protocol.js'
import { ENFORCE_RUNNER, installEnforcement } from './enforce.js'
import FlakeproofReporter, { REPORTER_BRAND } from './reporter.js'
import { BROWSER_COMMANDS, reachOf, recordInBrowser } from './_browser.js'
import { runInRounds } from './_rounds.js'

export type { FlakeproofVitestOptions } from '../../src/session/adapter.js'
export { default as FlakeproofReporter } from './reporter.js'

const RUNNER = ownFile('plugin/vitest/runner.js')

/**
 * flakeproof's own files (the runner, its protocol), loaded by Node in each worker as they are: Vite
 * transforms any module outside node_modules, and a linked flakeproof (`npm link`, a `file:`
 * dependency, a monorepo's workspace) resolves outside it, which cost every run ~2 s of transforms
 * of modules that need none.
 */
const OWN_FILES = new RegExp(`^${escapeRegExp(ownFile(''))}`)

/** What only `flakeproof vitest` can do is suggested in its form. */
const WRAPPER_HINTS = hintsFor({ runner: 'vitest', form: 'wrapper' })

/** Set by `flakeproof vitest`, whose flags win over any plugin instance in the user's config. */
export const WRAPPER_OPTIONS = Symbol.for('flakeproof.vitest.options')

export interface WrapperOverride {
  options: ResolvedVitestOptions | undefined
  command: string
}

/** Set once the runner is on the projects of this process's Vitest (any copy of this module). */
const INSTALLED = Symbol.for('flakeproof.vitest.installed')

/** The slice of a Vite plugin this needs; typed loosely so any Vite that Vitest 3.2–5 uses accepts it. */
export interface FlakeproofPlugin {
  name: string
  config: (userConfig?: { root?: string; test?: ProjectsConfig }) =>
    { test: { runner: string; includeTaskLocation?: true; server: { deps: { external: RegExp[] } }; browser?: { commands: typeof BROWSER_COMMANDS } } } | undefined
  configureVitest: (context: { vitest: Vitest }) => void
  configureServer: { order: 'post'; handler: (server: { config: { root: string; test?: ProjectsConfig } }) => void }
}

/** Where a config lists projects: `test.projects`, or Vitest 3.2's `test.workspace`. */
interface ProjectsConfig {
  projects?: unknown[]
  workspace?: unknown[] | string
}

/** Vitest 3.2 also reads projects from a `vitest.workspace.*` file beside the config. */
const WORKSPACE_FILES = ['vitest.workspace.ts', 'vitest.workspace.mts', 'vitest.workspace.js', 'vitest.workspace.mjs', 'vitest.workspace.json']

function listsProjects(root: string, test: ProjectsConfig | undefined): boolean {
  return test?.projects !== undefined || test?.workspace !== undefined || WORKSPACE_FILES.some((name) => existsSync(join(root, name)))
}

interface InlineProject {
  extends?: unknown
  plugins?: unknown[]
}

function isInlineProject(project: unknown): project is InlineProject {
  return typeof project === 'object' && project !== null && !Array.isArray(project)
}

/**
 * The Vitest plugin: `plugins: [flakeproof()]`. Inactive (nothing injected, nothing written) unless
 * a repeat count or a proof is asked for, by these options, by `vitest run -- --flaky-repeat 200`
 * or by FLAKEPROOF_REPEAT=200. When active it sets the recording runner on every project and adds
 * the reporter next to the user's own reporters.
 */
export function flakeproof(options: FlakeproofVitestOptions = {}): FlakeproofPlugin {
  let resolved: ResolvedVitestOptions | undefined
  let wrapped = false
  let projectFiles: string[] = []
  let command = `vitest ${process.argv.slice(2).join(' ')}`.trim()
  const plugin: FlakeproofPlugin = {
    name: 'flakeproof',
    config(userConfig) {
      const override = (globalThis as Record<symbol, WrapperOverride | undefined>)[WRAPPER_OPTIONS]
      wrapped = override !== undefined
      resolved = override ? override.options : inOneLine(() => resolveRunnerOptions(RUNNERS.vitest, options, argsAfterSeparator(process.argv), process.env))
      if (override) command = override.command
      if (!resolved) return undefined
      // Vitest only calls `configureVitest` for plugins of projects: reach inline projects that do
      // not extend this config by adding the plugin to them.
      const listed = userConfig?.test?.projects ?? userConfig?.test?.workspace
      const projects = Array.isArray(listed) ? listed : []
      for (const project of projects) {
        if (isInlineProject(project) && !project.extends) project.plugins = [...(project.plugins ?? []), plugin]
      }
      projectFiles = projects.filter((p): p is string => typeof p === 'string')
      if (resolved.budget !== undefined && !wrapped) {
        throw oneLineError(`flakeproof: --flaky-budget times a first run and then starts a second one, which only \`${WRAPPER_HINTS.again('--flaky-budget 5m')} [vitest args]\` can do`)
      }
      // Test locations for GitHub annotations' `line=` (a test's TestCase.location is unset without
      // it), the one place they are read; when recording, browser mode's journal command for any
      // browser project (_browser.ts).
      const server = { deps: { external: [OWN_FILES] } }
      const located = locatesTests()
      if (resolved.enforce) return { test: { runner: ENFORCE_RUNNER, ...located, server } }
      return { test: { runner: RUNNER, ...located, server, browser: { commands: BROWSER_COMMANDS } } }
    },
    configureVitest({ vitest }) {
      if (resolved) installFlakeproof(vitest, resolved, command, 'config')
    },
    // Runs once Vitest has resolved its projects and called `configureVitest` on theirs. Projects in
    // config files of their own never see a plugin of the root config: measuring nothing while the
    // user believes they measured is the one outcome not allowed, so the run stops here, before any test.
    configureServer: {
      order: 'post',
      handler(server) {
        // Only the root config lists projects; inline projects' servers start before any is configured.
        if (!listsProjects(server.config.root, server.config.test)) return
        if (!resolved || wrapped || (globalThis as Record<symbol, unknown>)[INSTALLED]) return
        const which = projectFiles.length > 0 ? `the projects of ${projectFiles.map((p) => JSON.stringify(p)).join(', ')}` : 'the projects'
        throw oneLineError(
          `flakeproof: ${which} have config files of their own, which a plugin in the root config never reaches, so nothing would be repeated; ` +
            `run \`${WRAPPER_HINTS.again('--flaky-repeat <n>')} [vitest args]\` (it covers every project), or add flakeproof() to each project config`,
        )
      },
    },
  }
  return plugin
}

/**
 * Sets the recording runner and the options on every project, and adds the reporter unless one is
 * there. `config` adds it to the reporters Vitest is about to create (from `configureVitest`);
 * `runtime` to the ones it already created (for `flakeproof vitest`, after `createVitest`).
 */
export function installFlakeproof(vitest: Vitest, resolved: ResolvedVitestOptions, command: string, when: 'config' | 'runtime'): void {
  // Either list takes any reporter instance; `Vitest.reporters` is not in Vitest's public types.
  const existing: unknown[] = when === 'config' ? vitest.config.reporters : (vitest as unknown as { reporters: unknown[] }).reporters
  if (existing.some(isFlakeproofReporter)) return
  // Before anything is locked or written: a project the runner cannot reach stops the run here.
  const reach = inOneLine(() => vitest.projects.map((project) => reachOf(project, vitest.version, resolved.enforce ? 'enforcing' : 'recording')))
  if (resolved.enforce) {
    const enforcing = inOneLine(() => installEnforcement(vitest, resolved, command))
    ;(globalThis as Record<symbol, unknown>)[INSTALLED] = true
    if (when === 'runtime') enforcing.onInit(vitest)
    existing.push(enforcing)
    return
  }
  const outDir = inOneLine(() => resolveOutDir(vitest.config.root, resolved))
  // Held while this Vitest lives (watch mode reruns into the same folder): one run per folder.
  // Checked before the lock makes the folder: a refusal leaves nothing behind.
  const junit = inOneLine(() => resolveJunitPath(vitest.config.root, resolved))
  const lock = inOneLine(() => acquireOutputLock(outDir, `outDir (--flaky-out) ${resolved.outDir}`, { root: vitest.config.root }))
  vitest.onClose(() => lock.release())
  // Every file the run will write, and the JUnit file, refused now if it cannot be (a folder named
  // facts.jsonl, a link), not after the whole measurement; a refusal leaves nothing behind.
  const { runner: runnerOptions, proof } = inOneLine(() => {
    try {
      assertAllReplaceable(outDir, MEASUREMENT_FILES, 'outDir (--flaky-out)')
      if (junit) assertReplaceable(junit, 'junit (--flaky-junit)')
      return toRunnerOptions(resolved, outDir, vitest.config.root, command)
    } catch (error) {
      lock.abandon()
      throw error
    }
  })
  vitest.projects.forEach((project, i) => {
    project.config.runner = RUNNER
    if (inGithubActions(process.env)) project.config.includeTaskLocation ??= true
    project.provide('flakeproof', runnerOptions)
    if (reach[i] === 'browser') recordInBrowser(project, runnerOptions.journalDir)
  })
  neverWriteSnapshots(vitest)
  if (resolved.seed !== undefined) shuffleWithSeed(vitest, resolved.seed)
  ;(globalThis as Record<symbol, unknown>)[INSTALLED] = true
  const reporter = new FlakeproofReporter({ ...resolved, runnerMode: runnerOptions.mode, ...(proof ? { proving: proof } : {}), command, assignmentSeed: runnerOptions.assignmentSeed })
  if (when === 'runtime') reporter.onInit(vitest)
  runInRounds(vitest, resolved, reporter)
  const kept = existing.filter((r) => !isReporterName(r))
  existing.splice(0, existing.length, ...kept, reporter)
}

export default flakeproof

// --- internal ---

/**
 * Whether flakeproof's reporter is already in place. Checked by a brand, not `instanceof`: Vite
 * bundles the user's config, so its copy of this module is another instance than the wrapper's.
 */
function isFlakeproofReporter(entry: unknown): boolean {
  return typeof entry === 'object' && entry !== null && REPORTER_BRAND in entry
}

/** A `'flakeproof/reporter'` entry listed by hand would write the same files twice. */
function isReporterName(entry: unknown): boolean {
  const name = Array.isArray(entry) ? entry[0] : entry
  return typeof name === 'string' && /^flakeproof\/(vitest\/)?reporter$/.test(name)
}

/**
 * A measurement must not change the user's files: Vitest writes missing snapshots outside CI
 * (`updateSnapshot: 'new'`), so here a missing snapshot fails its repetition instead, as in CI. An
 * explicit `-u` (`'all'`) is the user's own request and stays.
 */
function neverWriteSnapshots(vitest: Vitest): void {
  const options = (vitest.config as { snapshotOptions?: { updateSnapshot?: string } }).snapshotOptions
  if (options?.updateSnapshot === 'new') options.updateSnapshot = 'none'
}

/** The order of tests inside each file, shuffled by Vitest's own sequencer with a seed that replays it (files keep their order). */
function shuffleWithSeed(vitest: Vitest, seed: number): void {
  const sequence = (vitest.config as { sequence: { shuffle?: unknown; seed?: number } }).sequence
  sequence.shuffle = { files: false, tests: true }
  sequence.seed = seed
}

/** What the runner in each worker is told, and, for a proof, what it proves (the session's selectProof). */
function toRunnerOptions(options: ResolvedVitestOptions, outDir: string, root: string, command: string): { runner: RunnerOptions; proof?: ProofSelection } {
  // The gapped/fast coin: replayed from --flaky-seed, else drawn (observer.json records it).
  const base = { gapMs: options.gapMs, failOnFlaky: options.failOnFlaky, journalDir: runDirOf(outDir).journal, assignmentSeed: assignmentSeedOf(options.seed) }
  if (!options.proof) {
    return { runner: { ...base, mode: 'measure', repeat: options.repeat ?? 1, slowRepeat: options.observe ? options.slowRepeat : 0, proofRuns: {} } }
  }
  const proof = selectProof({ runner: RUNNERS.vitest, command }, root, outDir, options)
  return { runner: { ...base, mode: 'proof', repeat: 1, slowRepeat: 0, proofRuns: proof.runs, proofFrom: proof.from }, proof }
}

/**
 * Vitest's `includeTaskLocation`, on under GitHub Actions, whose annotations are the one reader of a
 * test's location: elsewhere the user's own setting stands, and Vitest spares the stack it takes of
 * each test's declaration (200 trivial tests in 20 files: 6.31 against 6.40 s of worker CPU, medians
 * of four runs).
 */
function locatesTests(): { includeTaskLocation?: true } {
  return inGithubActions(process.env) ? { includeTaskLocation: true } : {}
}
