import { describe, expect, it } from 'vitest'
import { assignTestIds, formatTestId } from '../../src/core/test-id.js'

describe('formatTestId', () => {
  it.each([
    [{ project: '', file: 'a.test.ts', path: ['S', 't'] }, 'a.test.ts > S > t'],
    [{ project: 'unit', file: 'src/a.test.ts', path: ['t'] }, '[unit] src/a.test.ts > t'],
    // A separator inside a name is escaped, so it cannot read as nesting.
    [{ project: '', file: 'a.test.ts', path: ['A > B', 't'] }, 'a.test.ts > A \\> B > t'],
    [{ project: '', file: 'a.test.ts', path: ['A', 'B', 't'] }, 'a.test.ts > A > B > t'],
    [{ project: '', file: 'a.test.ts', path: [] }, 'a.test.ts'],
    // A type test beside a runtime test of the same file and name: its own id; the runtime id unchanged.
    [{ project: '', file: 'a.test.ts', path: ['S', 't'], mode: 'typecheck' as const }, '[typecheck] a.test.ts > S > t'],
    [{ project: 'unit', file: 'src/a.test.ts', path: ['t'], mode: 'typecheck' as const }, '[unit] [typecheck] src/a.test.ts > t'],
    [{ project: 'unit', file: 'src/a.test.ts', path: [], mode: 'typecheck' as const }, '[unit] [typecheck] src/a.test.ts'],
    // @fast-check/vitest and @fast-check/jest append the seed a property test drew, another every run
    // (remeda's rounds once made 4 tests of each): left out, at the end of the test's own name only.
    [{ project: '', file: 'a.test.ts', path: ['groupBy', 'keeps order (with seed=-1705165106)'] }, 'a.test.ts > groupBy > keeps order'],
    [{ project: '', file: 'a.test.ts', path: ['t (with seed=42)'] }, 'a.test.ts > t'],
    [{ project: '', file: 'a.test.ts', path: ['S (with seed=42)', 't'] }, 'a.test.ts > S (with seed=42) > t'],
    [{ project: '', file: 'a.test.ts', path: ['t (with seed=x)'] }, 'a.test.ts > t (with seed=x)'],
  ])('%j → %s', (identity, id) => {
    expect(formatTestId(identity)).toBe(id)
  })
})

describe('assignTestIds', () => {
  const at = (...path: string[]) => ({ project: '', file: 'a.test.ts', path })

  it('numbers tests that would share an id in declaration order, leaving the first as it is', () => {
    expect(assignTestIds([at('same'), at('other'), at('same'), at('same')])).toEqual([
      'a.test.ts > same',
      'a.test.ts > other',
      'a.test.ts > same (#2)',
      'a.test.ts > same (#3)',
    ])
  })

  it('stays unique even when a real name looks like a numbered one', () => {
    const ids = assignTestIds([at('same (#2)'), at('same'), at('same')])
    expect(new Set(ids).size).toBe(3)
    expect(ids).toEqual(['a.test.ts > same (#2)', 'a.test.ts > same', 'a.test.ts > same (#3)'])
  })

  it('numbers only within a mode: a runtime test and its type-test twin are two tests, neither `(#2)`', () => {
    expect(assignTestIds([at('t'), { ...at('t'), mode: 'typecheck' }])).toEqual(['a.test.ts > t', '[typecheck] a.test.ts > t'])
  })

  it('keeps `describe("A > B")` and `describe("A") > describe("B")` apart', () => {
    expect(assignTestIds([at('A > B', 't'), at('A', 'B', 't')])).toEqual(['a.test.ts > A \\> B > t', 'a.test.ts > A > B > t'])
  })
})
