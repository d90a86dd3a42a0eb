import { describe, expect, it } from 'vitest'
import { splitByGroup } from '../../src/core/uniform-groups.js'

const g = (key: string, trials: number, failures: number) => ({ key, trials, failures })

describe('splitByGroup: an outcome that follows the group, not chance', () => {
  // Chances by hand: Π (pⁿ + (1 − p)ⁿ) at the pooled rate p.
  it.each([
    // p = 1/3: (⅓¹⁰ + ⅔¹⁰)³ ≈ 5.6e-6 < 0.05.
    { case: 'one job failing all 10, two passing all 10', groups: [g('w', 10, 10), g('l1', 10, 0), g('l2', 10, 0)], split: [['w'], ['l1', 'l2']] },
    // p = 1/2, one execution each: every factor is 1.
    { case: 'one execution a group', groups: [g('a', 1, 1), g('b', 1, 0)], split: undefined },
    // p = 1/2, 3 each: (⅛ + ⅛)² = 1/16 ≥ 0.05.
    { case: 'three executions a group, two groups', groups: [g('a', 3, 3), g('b', 3, 0)], split: undefined },
    { case: 'a group of mixed outcomes', groups: [g('a', 10, 10), g('b', 10, 3)], split: undefined },
    { case: 'failures only', groups: [g('a', 10, 10), g('b', 10, 10)], split: undefined },
  ])('$case', ({ groups, split }) => {
    const found = splitByGroup(groups, 0.05)
    expect(found && [found.failing.map((x) => x.key), found.passing.map((x) => x.key)]).toEqual(split)
  })
})
