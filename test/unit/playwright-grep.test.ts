import { describe, expect, it } from 'vitest'
import { grepOf } from '../../plugin/playwright/_tests.js'

/**
 * A proof selects each test by `--grep /…/` (plugin/playwright/_tests.ts). Playwright matches it
 * against the project, the file (relative to its testDir), the suites and the name joined by
 * spaces, each suite's `@tags` after its title and the test's at the end (its `_grepTitleWithTags`
 * in playwright 1.65.1, lib/common/index.js). The titles below are written out as it builds them;
 * an unnamed project leaves a leading space, as `playwright test --list --grep '/^ tests\/a\.spec\.js …$/'`
 * matched on a project without named projects, and `/^tests\/…$/` did not.
 */
const test = (...path: string[]) => ({ titlePath: () => ['', ...path] })

describe('grepOf: the exact title of one test, for Playwright’s --grep', () => {
  it.each<[string, ReturnType<typeof test>, string[], string[]]>([
    ['a plain test', test('desktop', 'cart.spec.ts', 'cart', 'shows the total'), ['desktop cart.spec.ts cart shows the total'], ['mobile cart.spec.ts cart shows the total', 'desktop cart.spec.ts cart shows the total twice', 'desktop cart.spec.ts cart Shows the total']],
    ['with tags where Playwright puts them', test('desktop', 'cart.spec.ts', 'cart', 'total'), ['desktop cart.spec.ts cart @slow total @smoke @p1'], ['desktop cart.spec.ts cart total extra']],
    ['regular-expression characters, read as written', test('', 'a.spec.ts', 'f(x) [1] $5 a/b + c?'), [' a.spec.ts f(x) [1] $5 a/b + c?'], [' a.spec.ts fx 1 5 ab  c', ' aXspec.ts f(x) [1] $5 a/b + c?']],
    ['the same name in another file', test('desktop', 'checkout.spec.ts', 'cart', 'adds an item'), ['desktop checkout.spec.ts cart adds an item'], ['desktop cart.spec.ts cart adds an item']],
  ])('%s', (_name, title, matches, others) => {
    // Playwright reads `/…/` as a RegExp without flags: case counts.
    const grep = new RegExp(grepOf(title))
    for (const text of matches) expect(grep.test(text)).toBe(true)
    for (const text of others) expect(grep.test(text)).toBe(false)
  })
})
