import { binomialCoefficient } from './fraction.js'
import type { Dialect } from './junit-dialect.js'
import { doubleQuoted, shellWord } from './shell-words.js'
import { DRAWN_SEED } from './test-id.js'

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
  /**
   * `wrapper`: `npx flakeproof vitest …`; `config`: the plugin in the config, `npx vitest run -- …`.
   * `config` (Vitest's and Jest's): the options that found the run's config, carried by every command
   * (configArgsOf).
   */
  | { runner: 'vitest'; form: 'wrapper' | 'config'; config?: string | undefined }
  /** `version`: the project's Jest (`29.4.3`), when known: options exist only from some version on. */
  | { runner: 'jest'; version?: string | undefined; config?: string | undefined }
  /** `npx flakeproof playwright …`: Playwright Test, whose reporter cannot repeat on its own. */
  | { runner: 'playwright' }
  /** `flakeproof measure`, `collect`, `investigate`: every trial is a fresh process already. */
  | { runner: 'command' }
  /** Per-test results read from reports: `repeat` ran each run as a fresh process; `ingest` read them as they were. */
  | { runner: 'reports'; via: 'repeat' | 'ingest'; producer?: Producer | undefined }

/**
 * What an `undetermined` verdict is about (docs/contracts.md §5): a single switch that chance
 * explains too well, at `switchAt` of `trials`. A test (test mode, reports), or in command mode the
 * command measured.
 */
export interface UndeterminedSubject {
  test?: HintSubject | undefined
  /** Command mode: the command measured (rate.json `command`). */
  command?: string | undefined
  /** The first trial of the switch's second block. */
  switchAt: number | null
  trials: number
}

export interface Hints {
  /** The same tests measured again with these flakeproof flags (`--flaky-repeat 200`), as the run was started. */
  again(flags: string): string
  /**
   * One test run with these flakeproof flags, selected in the runner's own syntax, as the run was
   * started (`npx flakeproof jest --flaky-repeat 200 a.test.js -t '^cache refresh$'`). Null where no
   * command of the runner selects one test (command mode, reports): `again` is the next step there.
   */
  againFor(test: HintSubject, flags: string): string | null
  /**
   * One test in a fresh process, in the runner's own syntax; `whole`: its file run whole, since the
   * test may need the tests before it (order-dependent, or state its siblings leave). Null when there
   * is no such command: each run was a fresh process already, or the runner is not known.
   */
  runTest(test: HintSubject, whole: boolean): string | null
  /** The runner's own option that orders the tests by `seed`; null when this runner (version) has none. */
  seededOrder(seed: string): string | null
  /**
   * The run that would decide an `undetermined` subject: whole-run rounds of its file (each round
   * fresh module state, so a real switch repeats in every round and a chance one does not) where the
   * runner has them, else enough trials that the same switch continued would be significant alone.
   */
  decide(subject: UndeterminedSubject): string
  /**
   * A test that fails every repetition but passes its file's plain runs, or a non-idempotent one of a
   * test-mode run: its rate in ordinary runs,
   * whole-run rounds of its file with each test once (a per-test rate, where a measurement of the
   * file's exit code would read the other tests' failures as its own); null where there are none.
   */
  plainRate(test: HintSubject): string | null
}

/** Whole-run rounds of one repetition each: 20 ordinary runs of a file, each test's rate its own. */
const PLAIN_RATE_FLAGS = '--flaky-rounds 20 --flaky-repeat 1'

/** A command of flakeproof's own, as it runs from the project root (flakeproof is a dev dependency there). */
export function flakeproofCommand(args: string): string {
  return `npx flakeproof ${args}`
}

/** The hints for this context: the one function of its runner. */
export function hintsFor(context: HintContext): Hints {
  switch (context.runner) {
    case 'vitest':
      return vitestHints(context.form, context.config ?? '')
    case 'jest':
      return jestHints(context.version, context.config ?? '')
    case 'playwright':
      return playwrightHints()
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
  if (name === 'jest') return { runner: 'jest', version: rate.runner?.version, config: configArgsOf(rate.command, 'jest') || undefined }
  if (name === 'playwright') return { runner: 'playwright' }
  return { runner: 'vitest', form: rate.command.startsWith('flakeproof ') ? 'wrapper' : 'config', config: configArgsOf(rate.command, 'vitest') || undefined }
}

/**
 * The options of a run's command that found its config (`--config ./scripts/jest/jest.config.js`,
 * Vitest's `--root`), as one string with a leading space, '' when none: a suggested command without
 * them would run another config, or none (react-hook-form's Jest config is in scripts/jest/). The
 * command is rate.json's, its words joined by spaces.
 */
export function configArgsOf(command: string, runner: 'vitest' | 'jest'): string {
  const options = CONFIG_OPTIONS[runner]
  const words = command.split(/\s+/)
  const carried: string[] = []
  for (let i = 0; i < words.length; i++) {
    const word = words[i] as string
    if (word === '--') break
    const [flag, inline] = word.startsWith('--') && word.includes('=') ? [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)] : [word, undefined]
    if (!options.includes(flag)) continue
    const value = inline ?? words[++i]
    if (value !== undefined && value !== '') carried.push(flag, value)
  }
  return carried.length === 0 ? '' : ` ${carried.map(shellWord).join(' ')}`
}

/** Each runner's options that say where its config is. */
const CONFIG_OPTIONS: Readonly<Record<'vitest' | 'jest', readonly string[]>> = { vitest: ['--config', '-c', '--root', '-r', '--dir'], jest: ['--config', '-c', '--rootDir'] }

/**
 * Whether a test must run with the rest of its file: it is order-dependent, or it passed its first
 * repetition among its siblings and then broke its own later ones — isolated with `-t`, it may never
 * pass at all, and read broken.
 */
export function needsItsFile(test: { independence?: { switched_to: 'passed' | 'failed' | null } | null | undefined; tags?: readonly string[] | undefined }): boolean {
  return test.independence?.switched_to === 'failed' || (test.tags ?? []).includes('order-dependent')
}

// --- internal ---

const PRODUCERS: readonly Producer[] = ['pytest', 'jest-junit', 'vitest', 'mocha', 'playwright', 'node-test', 'surefire', 'nextest', 'libtest']

/** `-t` and its kin match the full name (suites and test joined by spaces) as a regular expression: escaped and anchored, so no other test whose name merely contains it runs. */
function anchoredName(test: HintSubject): string {
  const name = test.name.split(' > ').join(' ')
  // A property test's drawn seed changes every run: any seed matches.
  const drawn = DRAWN_SEED.test(name)
  return `^${escapeRegExp(name.replace(DRAWN_SEED, ''))}${drawn ? ' \\(with seed=-?\\d+\\)' : ''}$`
}

/**
 * Trials that decide a single switch by its shape alone: twice the fewest n at which the same first
 * block, the switch continued, would have chance below 5% (and never fewer than twice the trials
 * seen). A block of `first` then n − first the other way is one of C(n, first) equally likely
 * orders, and so is its mirror when `first` >= 2 (src/core/independence.ts switchChance).
 */
function trialsToDecide({ switchAt, trials }: Pick<UndeterminedSubject, 'switchAt' | 'trials'>): number {
  const first = (switchAt ?? 2) - 1
  const directions = first >= 2 ? 2n : 1n
  for (let n = first + 2; n <= 10_000; n++) {
    if (binomialCoefficient(n, first) > 20n * directions) return Math.max(2 * trials, 2 * n)
  }
  return 2 * trials
}

/** Vitest: `npx vitest run <file> -t '<anchored name>' --project <p>`; `config`: configArgsOf's. */
function vitestHints(form: 'wrapper' | 'config', config: string): Hints {
  const select = (test: HintSubject, whole: boolean): string =>
    `${shellWord(test.file)}${whole ? '' : ` -t ${shellWord(anchoredName(test))}`}${test.project === '' ? '' : ` --project ${shellWord(test.project)}`}${config}`
  const runTest = (test: HintSubject, whole: boolean): string => `npx vitest run ${select(test, whole)}`
  return {
    again: (flags) => (form === 'wrapper' ? flakeproofCommand(`vitest ${flags}${config}`) : `npx vitest run${config} -- ${flags}`),
    // With the plugin in the config, flakeproof's flags follow `--`; Vitest's own go before it.
    againFor: (test, flags) => (form === 'wrapper' ? flakeproofCommand(`vitest ${flags} ${select(test, false)}`) : `npx vitest run ${select(test, false)} -- ${flags}`),
    runTest,
    seededOrder: (seed) => `--flaky-seed ${seed}`,
    // The file whole: the switch may need its siblings.
    decide: ({ test }) => fileRounds(test, '--flaky-rounds 3 --flaky-repeat 10'),
    plainRate: (test) => fileRounds(test, PLAIN_RATE_FLAGS),
  }

  /** Whole-run rounds of a test's file (every file without one), in the form the run was started. */
  function fileRounds(test: HintSubject | undefined, flags: string): string {
    const file = test === undefined ? '' : ` ${shellWord(test.file)}`
    const project = test === undefined || test.project === '' ? '' : ` --project ${shellWord(test.project)}`
    return form === 'wrapper' ? flakeproofCommand(`vitest ${flags}${project}${file}${config}`) : `npx vitest run${file}${project}${config} -- ${flags}`
  }
}

/**
 * Jest: `npx jest <file> -t '<anchored name>'`; `--randomize --seed` from Jest 29.5 on. Its flags never
 * go after `--`: `flakeproof jest` takes them. `config`: configArgsOf's.
 */
function jestHints(version: string | undefined, config: string): Hints {
  const select = (test: HintSubject, whole: boolean): string =>
    `${shellWord(test.file)}${whole ? '' : ` -t ${shellWord(anchoredName(test))}`}${test.project === '' ? '' : ` --selectProjects ${shellWord(test.project)}`}${config}`
  const runTest = (test: HintSubject, whole: boolean): string => `npx jest ${select(test, whole)}`
  return {
    again: (flags) => flakeproofCommand(`jest ${flags}${config}`),
    againFor: (test, flags) => flakeproofCommand(`jest ${flags} ${select(test, false)}`),
    runTest,
    // `--randomize` came in Jest 29.5; a version that does not read as numbers is taken to have it.
    seededOrder: (seed) => (version !== undefined && versionAtLeast(version, [29, 5]) === false ? null : `--randomize --seed ${seed}`),
    // Whole-run rounds of the file, run whole, as for Vitest: each round runs Jest again, every file loaded anew.
    decide: ({ test }) => fileRounds(test, '--flaky-rounds 3 --flaky-repeat 10'),
    plainRate: (test) => fileRounds(test, PLAIN_RATE_FLAGS),
  }

  function fileRounds(test: HintSubject | undefined, flags: string): string {
    const file = test === undefined ? '' : ` ${shellWord(test.file)}`
    const project = test === undefined || test.project === '' ? '' : ` --selectProjects ${shellWord(test.project)}`
    return flakeproofCommand(`jest ${flags}${file}${project}${config}`)
  }
}

/**
 * Playwright: `npx playwright test <file> --grep '/ <suites and name>$/' --project <p>`. Its grep is
 * matched against the project, the file, the suites and the name joined by spaces, case-insensitive
 * unless written `/…/`: the slashes keep the case, and the leading space and `$` the whole name.
 * `--shuffle <seed>` is its own seeded order (of files, and of tests when fully parallel).
 */
function playwrightHints(): Hints {
  const project = (test: { project: string }): string => (test.project === '' ? '' : ` --project ${shellWord(test.project)}`)
  const select = (test: HintSubject, whole: boolean): string => {
    const name = test.name.split(' > ').join(' ').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
    return `${shellWord(test.file)}${whole ? '' : ` --grep ${shellWord(`/ ${name}$/`)}`}${project(test)}`
  }
  const runTest = (test: HintSubject, whole: boolean): string => `npx playwright test ${select(test, whole)}`
  return {
    again: (flags) => flakeproofCommand(`playwright ${flags}`),
    againFor: (test, flags) => flakeproofCommand(`playwright ${flags} ${select(test, false)}`),
    runTest,
    seededOrder: (seed) => `--shuffle ${seed}`,
    // Whole-run rounds of the file, as for Vitest: each round starts new workers, so fresh module state.
    decide: ({ test }) => flakeproofCommand(`playwright --flaky-rounds 3 --flaky-repeat 10${test === undefined ? '' : ` ${shellWord(test.file)}${project(test)}`}`),
    plainRate: (test) => flakeproofCommand(`playwright ${PLAIN_RATE_FLAGS} ${shellWord(test.file)}${project(test)}`),
  }
}

/** Command mode: the next steps are flakeproof's own commands; every trial already ran in a fresh process. */
function commandHints(): Hints {
  return {
    again: (flags) => flakeproofCommand(`measure ${flags}`),
    againFor: () => null,
    runTest: () => null,
    seededOrder: () => null,
    decide: (subject) => flakeproofCommand(`measure --cmd ${doubleQuoted(subject.command ?? '<command>')} --trials ${trialsToDecide(subject)}`),
    plainRate: () => null,
  }
}

/**
 * Reports of another runner (`repeat`, `ingest`): the Vitest plugin's flags do not apply there,
 * command mode's steps do, with the test command as the subject. Every run a report records was a
 * process of its own, so no run is suggested in place of the rate (each trial was an ordinary run already); one test is looked at alone
 * in its producer's syntax when the producer is known.
 */
function reportHints(producer: Producer | undefined): Hints {
  return {
    again: (flags) => {
      if (flags.includes('--flaky-proof')) return flakeproofCommand('proof --cmd "<fixed test command>" --policy policy.json')
      if (flags.includes('--flaky-observe')) return flakeproofCommand('observe --cmd "<test command>" --slow-trials 20 --gap-ms 2000')
      return flakeproofCommand('repeat --runs 200 --junit <report path> -- <test command>')
    },
    againFor: () => null,
    runTest: (test, whole) => (producer === undefined ? null : producerCommand(producer, test, whole)),
    seededOrder: () => null,
    // Every run was a fresh process already: more runs, enough for the same switch to be significant.
    decide: (subject) => flakeproofCommand(`repeat --runs ${trialsToDecide(subject)} --junit <report path> -- <test command>`),
    plainRate: () => null,
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

/** `text` matched literally inside a regular expression. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/** `29.4.3` ≥ [29, 5]: false; undefined when the version does not read as numbers. */
function versionAtLeast(version: string, [major, minor]: readonly [number, number]): boolean | undefined {
  const match = /^(\d+)\.(\d+)/.exec(version)
  if (!match) return undefined
  const [m, n] = [Number(match[1]), Number(match[2])]
  return m > major || (m === major && n >= minor)
}
