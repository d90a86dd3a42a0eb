import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { normaliseMessage, signatureOfError, signatureOfText } from '../../src/core/signature.js'
import { ROOT } from '../utils.js'

/**
 * Real failures, recorded from the real tools by test/fixtures/signatures/record.mjs (its header and
 * each entry's `tool` and `command` say which and how). Each test failed in two runs (CALL=3 and
 * CALL=7: other numbers, ids, times, paths, ports, colours) and must give the one signature below.
 */
interface Recorded {
  id: string
  tool: string
  command: string
  root: string
  error?: { name: string; message: string; stack: string }
  text?: string
}
const { entries } = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/signatures/messages.json'), 'utf8')) as { entries: Recorded[] }

const SIGNATURES: Record<string, string> = {
  'vitest: sums prices': 'AssertionError: expected <n> to be <n> // Object.is equality @ tests/shop.test.ts',
  'vitest: builds the order': 'AssertionError: expected { id: <n>, items: [ <str> ] } to deeply equal { id: <n>, items: [ <str>, <str> ] } @ tests/shop.test.ts',
  'vitest: reads the cached price': 'Error: STALE price cache on call <n> @ src/price.ts (fetchPrice)',
  'vitest: totals an order': 'TypeError: Cannot read properties of undefined (reading <str>) @ src/price.ts (orderTotal)',
  'vitest: waits for the queue':
    'Error: Test timed out in <duration>. If this is a long-running test, pass a timeout value as the last argument or configure it globally with <str>. @ tests/shop.test.ts',
  'vitest: takes the lock': 'Error: lock <uuid> held since <time> by pid <n> in <path> @ tests/shop.test.ts',
  'vitest: finds the object': 'Error: object <hex> with id <hex> is gone @ tests/shop.test.ts',
  // Node's own frame only (node:net): no user frame to name.
  'vitest: connects to the server': 'Error: connect ECONNREFUSED <ip>:<port>',
  'vitest: matches the user name': 'AssertionError: expected <str> to be <str> // Object.is equality @ tests/shop.test.ts',
  'jest: sums prices': 'Error: expect(received).toBe(expected) // Object.is equality Expected: <n> Received: <n> @ tests/shop.test.js (toBe)',
  'jest: builds the order':
    'Error: expect(received).toEqual(expected) // deep equality - Expected - <n> + Received + <n> Object { - <str>: <n>, + <str>: <n>, <str>: Array [ <str>, - <str>, ], } @ tests/shop.test.js (toEqual)',
  'jest: reads the cached price': 'Error: STALE price cache on call <n> @ src/price.js (fetchPrice)',
  'jest: totals an order': 'TypeError: Cannot read properties of undefined (reading <str>) @ src/price.js (amount)',
  'jest: waits for the queue':
    'Error: thrown: Exceeded timeout of <duration> for a test. Add a timeout value to this test to increase the timeout, if this is a long-running test. See <url> @ tests/shop.test.js (test)',
  // A JUnit failure's message attribute is the message: Playwright repeats it below with its Expected and Received.
  'playwright: shop.spec.js > sums prices': 'Error: expect(received).toBe(expected) // Object.is equality @ tests/shop.spec.js',
  'playwright: shop.spec.js > reads the cached price': 'Error: STALE price cache on call <n> @ src/price.js (fetchPrice)',
  'playwright: shop.spec.js > waits for the queue': 'Test timeout of <duration> exceeded.',
  'playwright: shop.spec.js > polls the stock': 'Error: expect(received).toBe(expected) // Object.is equality @ tests/shop.spec.js',
  'pytest: tests.test_shop > test_sums_prices': 'AssertionError: assert (<n> + <n>) == <n> @ tests/test_shop.py (test_sums_prices)',
  'pytest: tests.test_shop > test_reads_the_cached_price': 'RuntimeError: STALE price cache on call <n> @ shop/cache.py (fetch_price)',
  'pytest: tests.test_shop > test_totals_an_order': 'KeyError: <str> @ shop/cache.py (order_total)',
  'pytest: tests.test_shop > test_writes_the_receipt': 'FileNotFoundError: no receipt in <path> after <duration> @ tests/test_shop.py (test_writes_the_receipt)',
  'cargo test: shop > tests::keeps_the_order': 'panic: order <n> out of <n> items @ src/lib.rs',
  'cargo test: shop > tests::parses_the_quantity': 'panic: called `Result::unwrap()` on an `Err` value: ParseIntError { kind: InvalidDigit } @ src/lib.rs',
  'cargo test: shop > tests::reads_the_cached_price': 'panic: STALE price cache on call <n> @ src/lib.rs',
  'cargo test: shop > tests::sums_prices': 'panic: assertion `left == right` failed left: <n> right: <n> @ src/lib.rs',
  'command: node job.mjs': 'Error: STALE price cache on call <n> @ job.mjs (load)',
  'command: python3 job.py': 'RuntimeError: STALE price cache on call <n> @ job.py (load)',
}

const signatureOf = (e: Recorded): string => (e.error ? signatureOfError(e.error, e.root) : signatureOfText(e.text ?? '', e.root))
// Vitest's JUnit report of a failure must give the signature its reporter's error object gives: a
// history of everyday runs and a CI report ingested later are compared by it.
const caseOf = (e: Recorded): string => e.id.replace(/ \(run \d+\)$/, '').replace(/^vitest junit: tests\/shop\.test\.ts > /, 'vitest: ')

describe('failure signatures of real failures', () => {
  it('has every recorded failure in the table, and every row recorded in both runs', () => {
    expect([...new Set(entries.map(caseOf))].sort()).toEqual(Object.keys(SIGNATURES).sort())
    const expectedRuns = (name: string): string[] => (name.startsWith('vitest: ') ? ['3', '3', '7', '7'] : ['3', '7'])
    for (const name of Object.keys(SIGNATURES)) expect(entries.filter((e) => caseOf(e) === name).map((e) => e.id.match(/run (\d+)/)?.[1]).sort()).toEqual(expectedRuns(name))
  })

  it.each(entries.map((e) => [e.id, e] as const))('%s', (_, entry) => {
    expect(signatureOf(entry)).toBe(SIGNATURES[caseOf(entry)])
  })

  it('tells apart the ways of failing, and not the runners that saw one', () => {
    // One file, two functions: two signatures.
    expect(SIGNATURES['vitest: reads the cached price']).not.toBe(SIGNATURES['vitest: totals an order'])
    // The same throw in the same source, seen by Jest and by Playwright: one signature.
    expect(SIGNATURES['jest: reads the cached price']).toBe(SIGNATURES['playwright: shop.spec.js > reads the cached price'])
  })

  it('normalises to a fixed point: a signature normalised again is unchanged', () => {
    for (const entry of entries) {
      const message = entry.error?.message ?? entry.text ?? ''
      const once = normaliseMessage(message)
      expect(normaliseMessage(once)).toBe(once)
    }
  })
})

describe('frames of a browser page (Vitest browser mode)', () => {
  // As Chromium gave them under Vitest 4.1.12's browser mode here (test/fixtures/vitest-browser):
  // files are URLs of Vite's server, whose port changes every run, so the frame is named from its path.
  const root = '/work/app'
  const failure = (frame: string) => ({ name: 'AssertionError', message: "expected '0' to be '1' // Object.is equality", stack: `AssertionError: expected '0' to be '1' // Object.is equality\n${frame}` })
  it.each([
    ['the absolute path under the root', '    at http://localhost:63315/work/app/tests/counter-button.test.ts?v=1a2b3c:14:28', 'tests/counter-button.test.ts'],
    ['another port, the same frame', '    at http://localhost:40113/work/app/tests/counter-button.test.ts:14:28', 'tests/counter-button.test.ts'],
    ['a path relative to the root', '    at click (http://127.0.0.1:5173/src/counter.ts:3:9)', 'src/counter.ts (click)'],
    ['a file outside the root, through /@fs/', '    at http://localhost:5173/@fs/work/shared/lib.ts:1:1', '/work/shared/lib.ts'],
  ])('%s', (_name, frame, shown) => {
    expect(signatureOfError(failure(frame), root)).toBe(`AssertionError: expected <str> to be <str> // Object.is equality @ ${shown}`)
  })

  it("skips Vite's client and Vitest's own page code for the user's frame", () => {
    const stack = ['    at http://localhost:5173/@vite/client:10:1', '    at http://localhost:5173/__vitest_browser__/tester.js:2:2', '    at http://localhost:5173/tests/a.test.ts:5:5'].join('\n')
    expect(signatureOfError({ name: 'Error', message: 'boom', stack: `Error: boom\n${stack}` }, root)).toBe('Error: boom @ tests/a.test.ts')
  })
})

describe("flakeproof's own frames, run from a checkout (a linked package, a monorepo)", () => {
  // Built, flakeproof's runner code is in dist/plugin/<runner>/ (vitest, jest, playwright) and the chunks it shares (scripts/bundle-dist.mjs).
  const stackThrough = (own: string) => `Error: boom\n    at ${own}:3:9\n    at /work/app/tests/a.test.ts:5:5`
  it.each([
    ['a runner entry', '/work/flakeproof/dist/plugin/jest/_repeat.js'],
    ["Playwright's reporter", '/work/flakeproof/dist/plugin/playwright/reporter.js'],
    ['a shared chunk', '/work/flakeproof/dist/flakeproof-chunks/_repeat-DAKlz--P.js'],
    ['a shared chunk, as a file URL', 'file:///work/flakeproof/dist/flakeproof-chunks/_recorder-DPs3pubO.js'],
  ])('skips %s for the user\'s frame', (_name, own) => {
    expect(signatureOfError({ name: 'Error', message: 'boom', stack: stackThrough(own) }, '/work/app')).toBe('Error: boom @ tests/a.test.ts')
  })

  it("keeps the user's own built chunks (a workspace package's dist/chunks/) as the user's", () => {
    expect(signatureOfError({ name: 'Error', message: 'boom', stack: stackThrough('/work/app/packages/lib/dist/chunks/cart-Bx12.js') }, '/work/app')).toBe('Error: boom @ packages/lib/dist/chunks/cart-Bx12.js')
  })
})

describe('normaliseMessage, rule by rule (docs/attribution.md)', () => {
  // Fragments of the recorded messages above, one rule each.
  it.each([
    ['\u001b[2mexpect(\u001b[22m\u001b[31mreceived\u001b[39m\u001b[2m)', 'expect(received)'],
    ['See https://jestjs.io/docs/api#testname-fn-timeout.', 'See <url>'],
    ['in /tmp/lock-QW15RJ', 'in <path>'],
    ['lock 44528609-7bf1-459f-b736-cdc8791fc936 held', 'lock <uuid> held'],
    ['held since 2026-12-01T08:42:56.470Z by', 'held since <time> by'],
    ['connect ECONNREFUSED 127.0.0.1:34063', 'connect ECONNREFUSED <ip>:<port>'],
    ['object 0x1b97 with id 232ab3cbf8785d6f727f46aa is gone', 'object <hex> with id <hex> is gone'],
    ["(reading 'amount')", '(reading <str>)'],
    ['Test timeout of 500ms exceeded.', 'Test timeout of <duration> exceeded.'],
    ['Exceeded timeout of 43 ms for a test.', 'Exceeded timeout of <duration> for a test.'],
    ['expected 0.30000000000000004 to be 0.3', 'expected <n> to be <n>'],
    ["order can't be empty", "order can't be empty"],
    ['Expected: 0.3\n\nReceived: 0.30000000000000004', 'Expected: <n> Received: <n>'],
  ])('%j → %j', (message, normalised) => {
    expect(normaliseMessage(message)).toBe(normalised)
  })

  it('cuts a long message at 200 characters', () => {
    const long = normaliseMessage('x'.repeat(500))
    expect(long).toBe(`${'x'.repeat(200)}…`)
  })
})
