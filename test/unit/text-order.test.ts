import { describe, expect, it } from 'vitest'
import { byCodeUnits } from '../../src/core/text-order.js'

// The order of tests in flakeproof's files: by code units, so one run's files list them alike on every
// machine whatever its locale (localeCompare put `ä` after `z` under LANG=sv_SE.UTF-8, before it under en_US).
describe('byCodeUnits', () => {
  it.each([
    [['z', 'ä', 'a'], ['a', 'z', 'ä']],
    // Upper case before lower, as `sort()` and `ls` under LC_ALL=C: 'B' is U+0042, 'a' U+0061.
    [['tests/b.test.ts > a', 'tests/B.test.ts > a', 'tests/a.test.ts > a'], ['tests/B.test.ts > a', 'tests/a.test.ts > a', 'tests/b.test.ts > a']],
    // ISO times order as times.
    [['2026-12-07T10:00:00.000Z', '2026-12-06T23:59:59.999Z'], ['2026-12-06T23:59:59.999Z', '2026-12-07T10:00:00.000Z']],
    [['same', 'same'], ['same', 'same']],
  ])('%j → %j, as the default sort', (input, expected) => {
    expect([...input].sort(byCodeUnits)).toEqual(expected)
    expect([...input].sort()).toEqual(expected)
  })
})
