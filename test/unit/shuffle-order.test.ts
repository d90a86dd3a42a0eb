import { describe, expect, it } from 'vitest'
import { alwaysTogether, type ShuffleRule, type Together } from '../../src/core/shuffle-order.js'

/**
 * Which tests a runner's shuffle always keeps on one side of another (src/core/shuffle-order.ts).
 * Vitest 4.1 (@vitest/runner `runSuite`) shuffles a suite's blocks and its own tests as two groups;
 * Jest's `--randomize` shuffles each block's children together; both keep a block whole. The rows
 * marked preact-iso are its test/router.test.jsx (Vitest 4.1.9 browser mode, 24 shuffled rounds): the
 * test "should scroll to top when navigating forward", directly in `Router`, needed state that 14
 * tests in its two describe blocks leave, and all 14 tied in every round.
 */
const INTERCEPT = ['Router', 'intercepted VS external links', 'should intercept clicks on links with target="_self"']
const NAVIGATE = ['Router', 'intercepted VS external links', 'should allow default browser navigation for links with target="_blank"']
const SCOPE = ['Router', 'intercepted VS external links with `scope`', 'should intercept clicks on links matching the `scope` props (string)']
const SCROLL = ['Router', 'should scroll to top when navigating forward']
const NORMALIZE = ['Router', 'should normalize children']
const HYDRATION = ['hydration', 'should wait for asynchronous routes']

describe('alwaysTogether: tests no shuffled order parts, relative to one test', () => {
  it.each<[string, ShuffleRule, string[], string[][], Together | null]>([
    ['preact-iso: one block, Vitest', 'blocks-apart-from-tests', SCROLL, [INTERCEPT, NAVIGATE], { kind: 'block', scope: ['Router', 'intercepted VS external links'] }],
    ['one block, Jest', 'blocks', SCROLL, [INTERCEPT, NAVIGATE], { kind: 'block', scope: ['Router', 'intercepted VS external links'] }],
    ['preact-iso: two sibling blocks, Vitest runs them apart from the test', 'blocks-apart-from-tests', SCROLL, [INTERCEPT, SCOPE], { kind: 'blocks', scope: ['Router'] }],
    ['two sibling blocks, Jest mixes blocks and tests', 'blocks', SCROLL, [INTERCEPT, SCOPE], null],
    ['a block and a test beside the test: parted', 'blocks-apart-from-tests', SCROLL, [INTERCEPT, NORMALIZE], null],
    ['tests beside a test inside a block, Vitest', 'blocks-apart-from-tests', INTERCEPT, [SCROLL, NORMALIZE], { kind: 'tests', scope: ['Router'] }],
    ['tests beside a test inside a block, Jest', 'blocks', INTERCEPT, [SCROLL, NORMALIZE], null],
    // Top-level blocks of the file: the shared scope is the file itself.
    ['a test in another top-level block and one in the test’s own: decided at different depths', 'blocks-apart-from-tests', SCROLL, [HYDRATION, NORMALIZE], null],
    ['top-level tests beside a block, Vitest', 'blocks-apart-from-tests', SCROLL, [['first'], ['second']], { kind: 'tests', scope: [] }],
    ['one candidate: nothing to part', 'blocks', SCROLL, [INTERCEPT], null],
  ])('%s', (_name, rule, test, others, expected) => {
    expect(alwaysTogether(rule, test, others)).toEqual(expected)
  })
})
