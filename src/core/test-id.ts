/**
 * A test's identity as data, and the one place its display id is derived (docs/contracts.md §4).
 * Adapters hand over `{project, file, path, mode}`; nothing parses an id back.
 */
export interface TestIdentity {
  /** Project name; '' when the run has no named project. */
  readonly project: string
  /** Path relative to the project root, with `/`. */
  readonly file: string
  /** Suite names from the outside in, then the test's own name. */
  readonly path: readonly string[]
  /**
   * How the test ran, when it is not an ordinary runtime execution: `typecheck` for a Vitest type
   * test, which may share its file and name with a runtime test (typecheck enabled on the same
   * files). Absent for runtime tests, so their ids stay what they always were.
   */
  readonly mode?: TestMode
}

/** The executions that are not runtime ones, each with its own ids. */
export type TestMode = 'typecheck'

/** Separator between suite and test names in an id, as Vitest prints a full name. */
const SEPARATOR = ' > '

/**
 * What @fast-check/vitest and @fast-check/jest append to a property test's name: the seed it drew
 * when its file was loaded, another each run (and each round). Left out of the id, which would
 * otherwise name another test every run: the test's history and its rounds stay one test.
 */
export const DRAWN_SEED = / \(with seed=-?\d+\)$/

/**
 * `[project] [typecheck] file > Suite > test`, the project part only when named, the mode part only
 * for a test that is not a runtime one. A separator inside a name is written `\>` so
 * `describe('A > B')` cannot read as `describe('A') > describe('B')`; a drawn seed at the end of the
 * test's name (DRAWN_SEED) is left out.
 */
export function formatTestId(identity: TestIdentity): string {
  const names = identity.path.map((name, i) => (i === identity.path.length - 1 ? name.replace(DRAWN_SEED, '') : name).split(SEPARATOR).join(' \\> '))
  const prefix = `${identity.project ? `[${identity.project}] ` : ''}${identity.mode ? `[${identity.mode}] ` : ''}`
  return `${prefix}${[identity.file, ...names].join(SEPARATOR)}`
}

/**
 * Ids for the tests of one file, given in declaration order (skipped ones included, so a filter
 * never renumbers the rest). Tests that would share an id — two `test('same')`, or `test.each` rows
 * Vitest names alike — get ` (#2)`, ` (#3)`… in declaration order: distinct, and stable across runs.
 */
export function assignTestIds(tests: readonly TestIdentity[]): string[] {
  const taken = new Set<string>()
  return tests.map((identity) => {
    const base = formatTestId(identity)
    let id = base
    for (let ordinal = 2; taken.has(id); ordinal++) id = `${base} (#${ordinal})`
    taken.add(id)
    return id
  })
}
