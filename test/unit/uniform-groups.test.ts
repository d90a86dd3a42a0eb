import { describe, expect, it } from 'vitest'
import { splitByGroup } from '../../src/core/uniform-groups.js'

const ALPHA = { num: 1n, den: 20n }

const g = (key: string, trials: number, failures: number) => ({ key, trials, failures })

describe('splitByGroup: an outcome that follows the group, not chance', () => {
  // Chances by hand, given the counts: the subsets of groups whose sizes add up to the F failures,
  // over the C(N, F) equally likely choices of the failing executions.
  it.each([
    // F = 10 of 30: each single group, 3 of C(30, 10) = 30045015.
    { case: 'one job failing all 10, two passing all 10', groups: [g('w', 10, 10), g('l1', 10, 0), g('l2', 10, 0)], split: [['w'], ['l1', 'l2']], p: 3 / 30045015 },
    // F = 1 of 2: either group, 2 of C(2, 1) = 2: certain.
    { case: 'one execution a group', groups: [g('a', 1, 1), g('b', 1, 0)], split: undefined },
    // F = 3 of 6: either group, 2 of C(6, 3) = 20: 0.1 ≥ 0.05.
    { case: 'three executions a group, two groups', groups: [g('a', 3, 3), g('b', 3, 0)], split: undefined },
    // F = 2 of 8: only the group of 2, 1 of C(8, 2) = 28 = 0.0357 (at the pooled rate, 0.625 · 0.4375² = 0.12 would miss it).
    { case: 'two failing of 2, two groups of 3 passing', groups: [g('a', 2, 2), g('b', 3, 0), g('c', 3, 0)], split: [['a'], ['b', 'c']], p: 1 / 28 },
    { case: 'a group of mixed outcomes', groups: [g('a', 10, 10), g('b', 10, 3)], split: undefined },
    { case: 'failures only', groups: [g('a', 10, 10), g('b', 10, 10)], split: undefined },
  ])('$case', ({ groups, split, p }) => {
    const found = splitByGroup(groups, ALPHA)
    expect(found && [found.failing.map((x) => x.key), found.passing.map((x) => x.key)]).toEqual(split)
    if (p !== undefined) expect(found?.pValue).toBeCloseTo(p, 15)
  })
})
