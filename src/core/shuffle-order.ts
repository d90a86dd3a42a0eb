/**
 * What a runner's shuffle can and cannot change about a file's order (`--flaky-shuffle`). Both keep
 * a describe block whole: its tests run one after another, wherever the block lands. Jest 29.5+'s
 * `--randomize` shuffles each block's children, tests and blocks alike (jest-circus
 * `shuffleArray(describeBlock.children)`); Vitest's `sequence.shuffle` shuffles a suite's blocks
 * and its own tests as two groups, then each group (@vitest/runner 4.1 `runSuite`: "run describe
 * block independently from tests"), so a suite's blocks are all on one side of its tests. Vitest also
 * draws one permutation per size in a round (`shuffle(array, seed)` of @vitest/utils depends on the
 * length and the seed alone), so two groups of one size at different depths move alike: tests this
 * file's structure alone does not keep together may still never part, which only more rounds show.
 */
export type ShuffleRule = 'blocks' | 'blocks-apart-from-tests'

/**
 * Where tests that every shuffled order keeps on one side of another test are: `block`, all inside
 * the describe block `scope`; `blocks`, inside blocks directly in `scope`, which Vitest runs apart
 * from the tests beside them; `tests`, directly in `scope`, which Vitest runs apart from the blocks
 * beside them. `scope` holds suite names from the outside in; [] is the file's top level.
 */
export interface Together {
  kind: 'block' | 'blocks' | 'tests'
  scope: string[]
}

/**
 * Whether the tests at `others` (suite names, then the test's own) run on the same side of the test
 * at `test`, of the same file, in every order `rule` can draw, and where they are; null when the
 * file's structure alone does not keep them together (more shuffled rounds may tell them apart). A
 * test's side of another is decided in the innermost suite holding both, by how that suite's
 * children holding each are ordered: tests whose innermost shared suite with `test` differs are
 * parted by the deeper suite's shuffle (in Jest; Vitest's, above, may move both alike).
 */
export function alwaysTogether(rule: ShuffleRule, test: readonly string[], others: readonly (readonly string[])[]): Together | null {
  const [first, ...rest] = others
  if (first === undefined || rest.length === 0) return null
  const suites = (path: readonly string[]) => path.slice(0, -1)
  const depth = shared(suites(test), suites(first))
  if (rest.some((path) => shared(suites(test), suites(path)) !== depth)) return null
  const scope = suites(test).slice(0, depth)
  // Each test's child of `scope`: a block's name, or the test itself (null).
  const childOf = (path: readonly string[]) => (path.length - 1 > depth ? path[depth] : null)
  const children = others.map(childOf)
  const block = children[0]
  if (block !== null && block !== undefined && children.every((c) => c === block)) return { kind: 'block', scope: [...scope, block] }
  if (rule !== 'blocks-apart-from-tests') return null
  const testIsBlock = childOf(test) !== null
  if (!testIsBlock && children.every((c) => c !== null)) return { kind: 'blocks', scope }
  if (testIsBlock && children.every((c) => c === null)) return { kind: 'tests', scope }
  return null
}

// --- internal ---

/** How many leading names two suite paths share. */
function shared(a: readonly string[], b: readonly string[]): number {
  let i = 0
  while (i < a.length && i < b.length && a[i] === b[i]) i++
  return i
}
