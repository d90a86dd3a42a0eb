import type { Dialect } from './junit-dialect.js'
import { doubleQuoted, shellWord } from './shell-words.js'

/**
 * Every command flakeproof suggests — in the terminal, flaky_report.md, report.html and the GitHub
 * summary — comes from here, one function per runner, in that runner's own syntax. Each runs as
 * shown from the project root: `npx flakeproof …`, never a bare `flakeproof`, quoted for sh.
 */

/** A test as its runner names it: `name` is its suites and own name joined by ` > `. */
export interface HintSubject {
  project: string
  file: string
  name: string
}

/** What produced per-test results read from reports, when known (src/core/junit-dialect.ts): its syntax runs one test again. */
export type Producer = Dialect

/** Who ran the tests, and how flakeproof was started: what the hints are written for. */
export type HintContext =
  /** `wrapper`: `npx flakeproof vitest …`; `config`: the plugin in the config, `npx vitest run -- …`. */
  | { runner: 'vitest'; form: 'wrapper' | 'config' }
  /** `version`: the project's Jest (`29.4.3`), when known: options exist only from some version on. */
  | { runner: 'jest'; version?: string | undefined }
  /** `flakeproof measure`, `collect`, `investigate`: every trial is a fresh process already. */
  | { runner: 'command' }
  /** Per-test results read from reports: `repeat` ran each run as a fresh process; `ingest` read them as they were. */
  | { runner: 'reports'; via: 'repeat' | 'ingest'; producer?: Producer | undefined }

export interface Hints {
  /** The same tests measured again with these flakeproof flags (`--flaky-repeat 200`), as the run was started. */
  again(flags: string): string
  /**
   * One test in a fresh process, in the runner's own syntax; `whole`: its file run whole, since the
   * test may need the tests before it (order-dependent, or state its siblings leave). Null when there
   * is no such command: each run was a fresh process already, or the runner is not known.
   */
  runTest(test: HintSubject, whole: boolean): string | null
  /** The fresh-run measurement of `runTest`: `npx flakeproof measure --cmd "…" --trials 20 --out …`; null as for runTest. */
  freshRun(test: HintSubject, whole: boolean): string | null
  /** The runner's own option that orders the tests by `seed`; null when this runner (version) has none. */
  seededOrder(seed: string): string | null
}

/** A command of flakeproof's own, as it runs from the project root (flakeproof is a dev dependency there). */
export function flakeproofCommand(args: string): string {
  return `npx flakeproof ${args}`
}

/** The hints for this context: the one function of its runner. */
export function hintsFor(context: HintContext): Hints {
  switch (context.runner) {
    case 'vitest':
      return vitestHints(context.form)
    case 'jest':
      return jestHints(context.version)
    case 'command':
      return commandHints()
    case 'reports':
      return reportHints(context.producer)
  }
}

/**
 * The context of a measurement from what it wrote (rate.json): its runner when recorded, else what
 * its command says (files written before rate.json had `runner`).
 */
export function hintContextOf(rate: {
  command: string
  tests?: unknown
  reports?: string | undefined
  producers?: readonly Dialect[] | undefined
  runner?: { name: string; version?: string | undefined } | undefined
}): HintContext {
  if (rate.reports !== undefined) {
    const via = rate.command.startsWith('flakeproof ingest') ? 'ingest' : 'repeat'
    // One producer wrote every report: its syntax. Several, or none recognised: no command.
    const [only, other] = rate.producers ?? []
    const named = PRODUCERS.find((p) => p === rate.runner?.name)
    const producer = rate.reports === 'libtest' ? 'libtest' : other === undefined ? (only ?? named) : undefined
    return { runner: 'reports', via, producer }
  }
  if (rate.tests === undefined) return { runner: 'command' }
  const name = rate.runner?.name ?? (/^(?:flakeproof )?jest\b/.test(rate.command) ? 'jest' : 'vitest')
  if (name === 'jest') return { runner: 'jest', version: rate.runner?.version }
  return { runner: 'vitest', form: rate.command.startsWith('flakeproof ') ? 'wrapper' : 'config' }
}

/**
 * Whether a test must run with the rest of its file: it is order-dependent, or it passed its first
 * repetition among its siblings and then broke its own later ones — isolated with `-t`, it may never
 * pass at all, and read broken.
 */
export function needsItsFile(test: { independence?: { switched_to: 'passed' | 'failed' | null } | null | undefined; tags?: readonly string[] | undefined }): boolean {
  return test.independence?.switched_to === 'failed' || (test.tags ?? []).includes('order-dependent')
}

/** Where a fresh-run measurement writes, beside the measurement it checks. */
export const FRESH_RATE = '.flakeproof/fresh-rate.json'

// --- internal ---

const PRODUCERS: readonly Producer[] = ['pytest', 'jest-junit', 'vitest', 'mocha', 'playwright', 'node-test', 'surefire', 'nextest', 'libtest']

/** `-t` and its kin match the full name (suites and test joined by spaces) as a regular expression: escaped and anchored, so no other test whose name merely contains it runs. */
function anchoredName(test: HintSubject): string {
  return `^${test.name.split(' > ').join(' ').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`
}

function measureFresh(command: string | null): string | null {
  return command === null ? null : flakeproofCommand(`measure --cmd ${doubleQuoted(command)} --trials 20 --out ${FRESH_RATE}`)
}

/** Vitest: `npx vitest run <file> -t '<anchored name>' --project <p>`. */
function vitestHints(form: 'wrapper' | 'config'): Hints {
  const runTest = (test: HintSubject, whole: boolean): string => {
    const project = test.project === '' ? '' : ` --project ${shellWord(test.project)}`
    return `npx vitest run ${shellWord(test.file)}${whole ? '' : ` -t ${shellWord(anchoredName(test))}`}${project}`
  }
  return {
    again: (flags) => (form === 'wrapper' ? flakeproofCommand(`vitest ${flags}`) : `npx vitest run -- ${flags}`),
    runTest,
    freshRun: (test, whole) => measureFresh(runTest(test, whole)),
    seededOrder: (seed) => `--flaky-seed ${seed}`,
  }
}

/** Jest: `npx jest <file> -t '<anchored name>'`; `--randomize --seed` from Jest 29.5 on. Its flags never go after `--`: `flakeproof jest` takes them. */
function jestHints(version: string | undefined): Hints {
  const runTest = (test: HintSubject, whole: boolean): string => {
    const project = test.project === '' ? '' : ` --selectProjects ${shellWord(test.project)}`
    return `npx jest ${shellWord(test.file)}${whole ? '' : ` -t ${shellWord(anchoredName(test))}`}${project}`
  }
  return {
    again: (flags) => flakeproofCommand(`jest ${flags}`),
    runTest,
    freshRun: (test, whole) => measureFresh(runTest(test, whole)),
    // `--randomize` came in Jest 29.5; a version that does not read as numbers is taken to have it.
    seededOrder: (seed) => (version !== undefined && versionAtLeast(version, [29, 5]) === false ? null : `--randomize --seed ${seed}`),
  }
}

/** Command mode: the next steps are flakeproof's own commands; every trial already ran in a fresh process. */
function commandHints(): Hints {
  return {
    again: (flags) => flakeproofCommand(`measure ${flags}`),
    runTest: () => null,
    freshRun: () => null,
    seededOrder: () => null,
  }
}

/**
 * Reports of another runner (`repeat`, `ingest`): the Vitest plugin's flags do not apply there,
 * command mode's steps do, with the test command as the subject. Every run a report records was a
 * process of its own, so there is no fresh-run measurement to suggest; one test is looked at alone
 * in its producer's syntax when the producer is known.
 */
function reportHints(producer: Producer | undefined): Hints {
  return {
    again: (flags) => {
      if (flags.includes('--flaky-proof')) return flakeproofCommand('proof --cmd "<fixed test command>" --policy policy.json')
      if (flags.includes('--flaky-observe')) return flakeproofCommand('observe --cmd "<test command>" --slow-trials 20 --gap-ms 2000')
      return flakeproofCommand('repeat --runs 200 --junit <report path> -- <test command>')
    },
    runTest: (test, whole) => (producer === undefined ? null : producerCommand(producer, test, whole)),
    freshRun: () => null,
    seededOrder: () => null,
  }
}

/**
 * One test of a report, run again by the tool that produced it, or null where the report does not
 * say enough to select it (jest-junit's and mocha's defaults name no file; a generic report).
 */
function producerCommand(producer: Producer, test: HintSubject, whole: boolean): string | null {
  const path = test.name.split(' > ')
  const title = path.at(-1) ?? test.name
  const filtered = (flag: string): string => (whole ? '' : ` ${flag} ${shellWord(anchoredName(test))}`)
  switch (producer) {
    case 'vitest':
      return `npx vitest run ${shellWord(test.file)}${filtered('-t')}${test.project === '' ? '' : ` --project ${shellWord(test.project)}`}`
    case 'jest-junit':
      return looksLikeFile(test.file) ? `npx jest ${shellWord(test.file)}${filtered('-t')}` : null
    case 'playwright':
      return `npx playwright test ${shellWord(test.file)}${filtered('-g')}${test.project === '' ? '' : ` --project ${shellWord(test.project)}`}`
    case 'mocha':
      return looksLikeFile(test.file) ? `npx mocha ${shellWord(test.file)}${filtered('--grep')}` : null
    case 'node-test':
      return `node --test${whole ? '' : ` --test-name-pattern=${shellWord(`^${escapeRegExp(title)}$`)}`}${looksLikeFile(test.file) ? ` ${shellWord(test.file)}` : ''}`
    case 'pytest':
      // pytest's classname is the dotted module path and class, no file: -k selects by the function's name.
      return `python3 -m pytest -k ${shellWord(title.replace(/\[.*$/, ''))}`
    case 'surefire': {
      // Surefire's `file` is the test class; `-Dtest=Class#method` runs one method, `-Dtest=Class` the class.
      return `mvn ${shellWord(`-Dtest=${test.file}${whole ? '' : `#${title}`}`)} test`
    }
    case 'libtest':
    case 'nextest':
      // libtest names a test by its module path; it has no file to run whole.
      return `cargo test -- --exact ${shellWord(title)}`
    case 'generic':
      return null
  }
}

function looksLikeFile(file: string): boolean {
  return /\.[cm]?[jt]sx?$/.test(file)
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/** `29.4.3` ≥ [29, 5]: false; undefined when the version does not read as numbers. */
function versionAtLeast(version: string, [major, minor]: readonly [number, number]): boolean | undefined {
  const match = /^(\d+)\.(\d+)/.exec(version)
  if (!match) return undefined
  const [m, n] = [Number(match[1]), Number(match[2])]
  return m > major || (m === major && n >= minor)
}
