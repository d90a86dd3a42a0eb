/**
 * Who wrote a JUnit report, and what its test cases' attributes mean there (docs/other-runners.md).
 * Every producer spells a test differently: pytest's classname is a module path, jest-junit's default
 * is the test's own title, node:test's is the word "test", Playwright's project is in the suite's
 * `hostname`, mocha-junit-reporter's file is on the suite. Each was read from reports recorded from
 * the real tool (test/fixtures/junit-runs/). Pure: the reader hands over the shape it saw.
 */
import type { TestIdentity } from './test-id.js'

/** Producers told apart, `generic` for any other, `libtest` for `cargo test` logs. */
export const DIALECTS = ['pytest', 'jest-junit', 'vitest', 'mocha', 'playwright', 'node-test', 'surefire', 'nextest', 'generic', 'libtest'] as const
export type Dialect = (typeof DIALECTS)[number]

/** What a report's shape says about its producer, counted while it is read. */
export interface ReportShape {
  /** `testsuites` or `testsuite`: the root element. */
  root: string
  rootAttributes: Readonly<Record<string, string>>
  /** The first `testsuite` element's attributes. */
  suiteAttributes: Readonly<Record<string, string>>
  cases: number
  /** Cases whose classname is `test` (node:test writes it for every case). */
  classnameIsTest: number
  /** Cases whose classname is their name (jest-junit's default templates). */
  classnameIsName: number
  /** Cases with a `file` attribute, their own or their suite's. */
  withFile: number
}

/**
 * The producer, from marks each one always writes: the root's default name (jest-junit, Vitest,
 * mocha-junit-reporter, nextest), Playwright's `id` attribute on the root, pytest's suite name,
 * Surefire's schema location, node:test's classname on every case.
 */
export function detectDialect(shape: ReportShape): Dialect {
  const rootName = shape.root === 'testsuites' ? shape.rootAttributes.name : undefined
  if (rootName === 'jest tests') return 'jest-junit'
  if (rootName === 'vitest tests') return 'vitest'
  if (rootName === 'Mocha Tests') return 'mocha'
  if (rootName === 'nextest-run') return 'nextest'
  if (shape.root === 'testsuites' && 'id' in shape.rootAttributes && 'hostname' in shape.suiteAttributes) return 'playwright'
  if (shape.suiteAttributes.name === 'pytest') return 'pytest'
  if ((shape.suiteAttributes['xsi:noNamespaceSchemaLocation'] ?? '').includes('surefire')) return 'surefire'
  if (shape.cases > 0 && shape.classnameIsTest === shape.cases && shape.root === 'testsuites' && Object.keys(shape.rootAttributes).length === 0) return 'node-test'
  // jest-junit with its suite renamed (`suiteName`) still writes its default templates: classname = name.
  if (shape.cases > 0 && shape.classnameIsName === shape.cases && shape.withFile === 0) return 'jest-junit'
  return 'generic'
}

/** A test case as the identity rules need it (src/artifacts/junit-read.ts's JUnitCase). */
export interface CaseNames {
  classname: string
  name: string
  /** Its `file` attribute or its suite's, relative to the working folder when it was absolute inside it. */
  file: string
  suites: readonly string[]
  hostname: string
}

/**
 * The test's identity as far as the report tells it. Where the report carries enough, the id the
 * in-process adapter gives the same test: Vitest's and Jest's `file > describe > test`
 * (src/core/test-id.ts), Playwright's `[project] file > describe > test`.
 */
export function identityOf(c: CaseNames, dialect: Dialect): TestIdentity {
  switch (dialect) {
    case 'vitest':
      // classname is the file relative to Vitest's root; the name joins suites with ` > ` as Vitest's ids do.
      return { project: '', file: c.classname || c.file, path: c.name.split(' > ') }
    case 'playwright': {
      // includeProjectInTestName puts `[project] ` before the name: the project is the suite's hostname already.
      const prefix = `[${c.hostname}] `
      const name = c.hostname !== '' && c.name.startsWith(prefix) ? c.name.slice(prefix.length) : c.name
      return { project: c.hostname, file: c.classname, path: name.split(' \u203a ') }
    }
    case 'jest-junit':
      return jestIdentity(c)
    case 'mocha': {
      // name is the full title, classname the test's own title: what comes before it are the suites.
      const file = c.file || (c.suites.at(-1) ?? '')
      const path = c.classname !== '' && c.name.endsWith(` ${c.classname}`) ? [c.name.slice(0, -c.classname.length - 1), c.classname] : [c.name]
      return { project: '', file, path }
    }
    case 'node-test': {
      // No file anywhere: the describes are nested suites, the outermost stands where a file would.
      const [outer, ...inner] = c.suites
      return outer === undefined ? { project: '', file: c.name, path: [] } : { project: '', file: outer, path: [...inner, c.name] }
    }
    // Split at ` > ` as every report was before producers were told apart: their ids stay what they were.
    case 'pytest':
    case 'surefire':
    case 'nextest':
      return { project: '', file: c.classname, path: c.name.split(' > ') }
    case 'libtest':
      return { project: '', file: c.classname, path: [c.name] }
    case 'generic':
      return { project: '', file: c.classname || c.file || (c.suites.at(-1) ?? ''), path: c.name.split(' > ') }
  }
}

/**
 * Whether the producer writes a test again within one run only to record another attempt of it:
 * Playwright's `--repeat-each` (a suite per repetition), Surefire's reruns of a `@Nested` class's
 * outer tests (in a second file), nextest's `--stress`. Elsewhere a name written twice is two tests.
 */
export function repeatsAreAttempts(dialect: Dialect): boolean {
  return dialect === 'playwright' || dialect === 'surefire' || dialect === 'nextest'
}

/** The producer's own setting that gives each test an identity of its own, for the run error that leaves alike tests out. */
export function identityFixFor(dialect: Dialect): string {
  switch (dialect) {
    case 'jest-junit':
      return `set jest-junit's classNameTemplate to "{filepath}" and addFileAttribute to "true" (JEST_JUNIT_CLASSNAME='{filepath}' JEST_JUNIT_ADD_FILE_ATTRIBUTE=true), docs/other-runners.md`
    case 'vitest':
      return 'Vitest\'s junit reporter names no project: write one report per project (`vitest run --project <name> --outputFile=<file>`), or measure with flakeproof\'s Vitest plugin, docs/other-runners.md'
    case 'node-test':
      return 'node:test writes no file: give each file its own outer describe named for it, or write one report per file, docs/other-runners.md'
    case 'mocha':
      return 'give the tests distinct titles, or one report per file (mocha-junit-reporter\'s `[hash]` in mochaFile), docs/other-runners.md'
    case 'pytest':
      return 'give the tests distinct names or parameter ids (pytest.param(..., id=...)), docs/other-runners.md'
    case 'playwright':
    case 'surefire':
    case 'nextest':
    case 'libtest':
    case 'generic':
      return 'give the tests distinct names, or have the runner write the test file in a `file` attribute, docs/other-runners.md'
  }
}

// --- internal ---

/**
 * jest-junit: with `addFileAttribute` the file is on the case; with `classNameTemplate: "{filepath}"`
 * the classname is the file; by default classname and name are both `{describes} {title}` and no file
 * is written, so the suite's name (the file's first describe) stands where the file would. The
 * describes and the title are apart only when `ancestorSeparator` and `titleTemplate` put ` › ` between
 * them (the recipe); a test outside any describe then starts with it.
 */
function jestIdentity(c: CaseNames): TestIdentity {
  const file = c.file || (c.classname !== c.name ? c.classname : '')
  if (file === '') return { project: '', file: c.suites.at(-1) ?? '', path: [c.name] }
  const name = c.name.startsWith(' \u203a ') ? c.name.slice(3) : c.name
  return { project: '', file, path: name.split(' \u203a ') }
}
