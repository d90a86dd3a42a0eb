import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { ObserverFileSchema, ProofFileSchema, RateFileSchema } from '../../src/artifacts/schemas.js'
import { englishLeft } from '../english.js'
import { distinctColours } from '../png.js'
import { BIN, labCommand, readArtifact, ROOT, runCli, runNodeIn, runVitest, tempDir, VITEST_FIXTURE } from '../utils.js'

/**
 * report.html in a real browser: Debian's chromium driven by playwright-core. Missing chromium is a
 * failure, never a skip (`.ci/run` installs it). Screenshots at desktop (1280 px) and phone (390 px)
 * widths are written to the test's temp folder; FLAKEPROOF_WRITE_SCREENSHOT=1 refreshes docs/report.png.
 */
const CHROMIUM = '/usr/bin/chromium'
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`

interface Opened {
  page: Page
  requests: string[]
  /** Console errors, page errors and Content-Security-Policy violations. */
  errors: string[]
}

/** In the page: every text node outside code, and the shown attributes, as the reader meets them. */
const PROSE = `(() => {
  const texts = []
  const walker = document.createTreeWalker(document.documentElement, NodeFilter.SHOW_TEXT)
  for (let node = walker.nextNode(); node; node = walker.nextNode()) if (!node.parentElement.closest('code, pre, script, style')) texts.push(node.textContent)
  for (const element of document.querySelectorAll('[title], [aria-label], [placeholder]')) {
    for (const name of ['title', 'aria-label', 'placeholder']) if (element.hasAttribute(name)) texts.push(element.getAttribute(name))
  }
  return texts.filter((text) => text.trim() !== '')
})()`

const DESKTOP = { width: 1280, height: 900 }
const PHONE = { width: 390, height: 844 }

// Each test drives pages and screenshots in Chromium: 23 s on a loaded 2-core machine, over the
// suite's 20 s default; the limit only turns a hang into a failure.
describe('report.html in headless Chromium', { timeout: 90_000 }, () => {
  const dir = tempDir()
  const lab = join(dir, 'lab')
  const vitest = join(dir, 'vitest')
  const korean = join(dir, 'vitest-ko')
  const shots = join(dir, 'screenshots')
  let context: BrowserContext
  let browser: Browser

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: the browser tests need it (apt-get update && apt-get install -y chromium; .ci/run does this)`)
    const [investigation, measured] = await Promise.all([
      // Small counts: 40 quick trials (every fifth fails), 3 with gaps past the lab's 1500 ms, a 14-run proof.
      runCli(['investigate', '--cmd', labCommand(dir), '--fixed-cmd', labCommand(dir, '--fixed'), '--trials', '40', '--slow-trials', '3', '--gap-ms', '1600', '--out-dir', lab]),
      runVitest(['run', '--', '--flaky-repeat', '50', '--flaky-observe', '--flaky-slow-repeat', '5', '--flaky-out', vitest, '--flaky-out-anywhere'], { FIXTURE_GAP_MS: '50' }),
    ])
    expect(investigation.code, investigation.stderr).toBe(0)
    expect(investigation.stderr).toContain(`report: ${join(lab, 'report.html')}`)
    expect(measured.stdout + measured.stderr).toContain('report.html')
    // The same measurement in Korean, written where the run was (its test files resolve from there).
    cpSync(vitest, korean, { recursive: true })
    const ko = await runNodeIn(VITEST_FIXTURE, [BIN, 'report', '--dir', korean, '--lang', 'ko'])
    expect(ko.code, ko.stderr).toBe(0)
    context = await chromium.launchPersistentContext(tempDir('flakeproof-chromium-'), { executablePath: CHROMIUM, headless: true, args: ARGS, viewport: DESKTOP })
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS })
  }, 300_000)

  afterAll(async () => {
    await context?.close()
    await browser?.close()
  })

  async function open(folder: string, on: BrowserContext = context): Promise<Opened> {
    const url = pathToFileURL(join(folder, 'report.html')).href
    const page = await on.newPage()
    const requests: string[] = []
    const errors: string[] = []
    page.on('request', (request) => requests.push(request.url()))
    page.on('console', (message) => {
      // Chromium reports a blocked script or style as a console error naming the policy.
      if (message.type() === 'error' || message.text().includes('Content Security Policy')) errors.push(message.text())
    })
    page.on('pageerror', (error) => errors.push(error.message))
    await page.route('**/*', (route) => (route.request().url() === url ? route.continue() : route.abort()))
    await page.goto(url, { waitUntil: 'load' })
    return { page, requests: requests.filter((r) => r !== url), errors }
  }

  /** Executions per test id in facts.jsonl (skipped ones excluded), and how many failed. */
  function executionsOf(folder: string, key: (line: Record<string, unknown>) => string): Map<string, { all: number; failed: number }> {
    const counts = new Map<string, { all: number; failed: number }>()
    for (const text of readFileSync(join(folder, 'facts.jsonl'), 'utf8').split('\n')) {
      if (text === '') continue
      const line = JSON.parse(text) as Record<string, unknown>
      if (line.outcome === 'skipped') continue
      const count = counts.get(key(line)) ?? { all: 0, failed: 0 }
      count.all++
      if (line.outcome === 'failed') count.failed++
      counts.set(key(line), count)
    }
    return counts
  }

  async function checkScreenshots(page: Page, name: string): Promise<Buffer> {
    await page.emulateMedia({ colorScheme: 'light' })
    const light = await page.screenshot({ fullPage: true, path: join(shots, `${name}-desktop-light.png`) })
    await page.emulateMedia({ colorScheme: 'dark' })
    const dark = await page.screenshot({ fullPage: true, path: join(shots, `${name}-desktop-dark.png`) })
    await page.setViewportSize(PHONE)
    await page.emulateMedia({ colorScheme: 'light' })
    const narrow = await page.screenshot({ fullPage: true, path: join(shots, `${name}-phone.png`) })
    // Nothing wider than the 390 px phone: tables reflow, or scroll inside their own box (the predicates too).
    expect(await page.evaluate('document.documentElement.scrollWidth'), `${name} phone width`).toBeLessThanOrEqual(PHONE.width)
    for (const box of await page.locator('table.predicates, table.observed, table.plan, table.conditions').all()) {
      const scroller = await box.evaluate((table) => (table.closest('.scroll') as { clientWidth: number } | null)?.clientWidth ?? Number.POSITIVE_INFINITY)
      expect(scroller, `${name}: a wide table scrolls in a box the phone's width`).toBeLessThanOrEqual(PHONE.width)
    }
    await page.setViewportSize(DESKTOP)
    for (const [shot, png] of [['light', light], ['dark', dark], ['narrow', narrow]] as const) {
      expect(distinctColours(png).length, `${name} ${shot} screenshot is blank`).toBeGreaterThan(1)
    }
    // The backgrounds differ: the page follows prefers-color-scheme.
    expect(distinctColours(dark)[0]).not.toBe(distinctColours(light)[0])
    return light
  }

  async function checkRateRows(page: Page, rows: { id: string; trials: number; failures: number; rate: number; ci_low: number; ci_high: number }[]): Promise<void> {
    const shown = page.locator('table.rates tbody tr')
    expect(await shown.count()).toBe(rows.length)
    for (const s of rows) {
      const row = page.locator(`table.rates tr[data-id=${JSON.stringify(s.id)}]`)
      expect(await row.locator('.failures').textContent(), s.id).toBe(`${s.failures} of ${s.trials}`)
      expect(await row.locator('.rate').textContent(), s.id).toBe(pct(s.rate))
      expect(await row.locator('.interval').textContent(), s.id).toBe(`[${pct(s.ci_low)}, ${pct(s.ci_high)}]`)
      expect(Number(await row.getAttribute('data-ci-low')), s.id).toBe(s.ci_low)
      expect(Number(await row.getAttribute('data-ci-high')), s.id).toBe(s.ci_high)
      // Its dot-and-whisker plot: one dot, one whisker.
      expect(await row.locator('svg.ci .dot').count(), s.id).toBe(1)
      expect(await row.locator('svg.ci .whisker').count(), s.id).toBe(1)
    }
  }

  it('lab (command mode): no console error, no request, the numbers of the JSON files, a mark per trial', async () => {
    const { page, requests, errors } = await open(lab)
    expect(errors).toEqual([])
    expect(requests).toEqual([])
    const rate = readArtifact(join(lab, 'rate.json'), RateFileSchema)
    const observer = readArtifact(join(lab, 'observer.json'), ObserverFileSchema)
    const proof = readArtifact(join(lab, 'proof.json'), ProofFileSchema)
    expect(rate).toMatchObject({ trials: 40, failures: 8, verdict: 'flaky' })

    expect(await page.locator('.counts [data-verdict="flaky"] b').textContent()).toBe('1')
    expect(await page.locator('[data-value="trials"]').textContent()).toBe(String(rate.trials))
    expect(await page.locator('[data-value="failures"]').textContent()).toBe(String(rate.failures))
    await checkRateRows(page, [{ ...rate, id: rate.command }])

    const article = page.locator(`article[data-id=${JSON.stringify(rate.command)}]`)
    const facts = executionsOf(lab, () => rate.command).get(rate.command)
    expect(facts).toEqual({ all: 40, failed: 8 })
    expect(await article.locator('svg.strip[data-mode="fast"] .mark').count()).toBe(40)
    expect(await article.locator('svg.strip[data-mode="fast"] .mark.fail').count()).toBe(8)
    expect(await article.locator('svg.strip[data-mode="proof"] .mark').count()).toBe(proof.trials)
    expect(await article.locator('svg.durations .pt').count()).toBe(40)
    // A click on the first failing mark opens that trial: its exit code and stderr, as facts.jsonl has them.
    const firstFailed = readFileSync(join(lab, 'facts.jsonl'), 'utf8').split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as { trial: number; outcome: string; exit_code: number; stderr: string }).find((f) => f.outcome === 'failed')
    const mark = article.locator('svg.strip[data-mode="fast"] a.marklink').first()
    expect(await mark.getAttribute('href')).toBe(`#s1-r${firstFailed?.trial}`)
    await mark.click()
    expect(await page.locator(`#s1-r${firstFailed?.trial} pre.output`).textContent()).toBe(firstFailed?.stderr)
    expect(await page.locator(`details:has(#s1-r${firstFailed?.trial}) summary`).textContent()).toContain(`exit code ${firstFailed?.exit_code}`)

    expect(await page.locator('[data-headline="observer"] [data-value="p_value"]').textContent()).toBe(observer.p_value.toPrecision(3))
    expect(await page.locator('[data-headline="proof"]').textContent()).toContain(`ran ${proof.trials} of ${proof.required} required times with ${proof.failures} failure(s): ${proof.passed ? 'PASSED' : 'FAILED'}`)
    await checkScreenshots(page, 'lab')
    await page.close()
  })

  it('Vitest (test mode): every flaky test has its plot, a mark per execution, and the JSON numbers', async () => {
    const { page, requests, errors } = await open(vitest)
    expect(errors).toEqual([])
    expect(requests).toEqual([])
    const rate = readArtifact(join(vitest, 'rate.json'), RateFileSchema)
    const observer = readArtifact(join(vitest, 'observer.json'), ObserverFileSchema)
    const tests = rate.tests ?? []
    for (const verdict of ['flaky', 'broken', 'non-idempotent', 'partial', 'stable']) {
      expect(await page.locator(`.counts [data-verdict="${verdict}"] b`).textContent(), verdict).toBe(String(tests.filter((t) => t.verdict === verdict).length))
    }
    await checkRateRows(page, tests.filter((t) => t.verdict !== 'stable'))

    const flaky = tests.filter((t) => t.verdict === 'flaky')
    expect(flaky.map((t) => t.id).sort()).toEqual(['tests/counter.test.ts > fails on every fifth call', 'tests/timing.test.ts > races when called quickly'])
    const facts = executionsOf(vitest, (line) => String(line.test_id))
    for (const test of flaky) {
      const article = page.locator(`article[data-id=${JSON.stringify(test.id)}]`)
      const expected = facts.get(test.id)
      // 50 fast repetitions, then 5 gapped ones, each followed by a fast one (paired).
      expect(expected?.all, test.id).toBe(60)
      expect(await article.locator('svg.strip .mark').count(), test.id).toBe(expected?.all)
      expect(await article.locator('svg.strip .mark.fail').count(), test.id).toBe(expected?.failed)
      expect(await article.locator('svg.strip[data-mode="fast"] .mark').count(), test.id).toBe(test.trials)
      expect(await article.locator('svg.compare .dot').count(), test.id).toBe(2)
      expect(await article.locator('[data-value="p_value"]').textContent(), test.id).toBe(observer.tests?.[test.id]?.p_value.toPrecision(3))
    }
    const light = await checkScreenshots(page, 'vitest')
    if (process.env.FLAKEPROOF_WRITE_SCREENSHOT === '1') writeFileSync(join(ROOT, 'docs/report.png'), await page.screenshot({ fullPage: false }))
    expect(light.length).toBeGreaterThan(0)
    await page.close()
  })

  /** Rows of the rate table the reader sees now, by test id. */
  async function visibleRows(page: Page): Promise<string[]> {
    return page.locator('table.rates tbody tr:visible').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-id') ?? ''))
  }

  it('Vitest: a click on a failing strip mark opens that repetition with its error, stack link and output', async () => {
    const { page, errors } = await open(vitest)
    const id = 'tests/counter.test.ts > fails on every fifth call'
    const article = page.locator(`article[data-id=${JSON.stringify(id)}]`)
    // The counter fails calls 5, 10, …: the second failing mark is repetition 10.
    const mark = article.locator('svg.strip[data-mode="fast"] a.marklink').nth(1)
    const href = await mark.getAttribute('href')
    expect(href).toMatch(/^#s\d+-r10$/)
    const body = page.locator(href ?? '')
    expect(await body.isVisible()).toBe(false)
    await mark.click()
    expect(await body.isVisible()).toBe(true)
    expect(await body.evaluate((dl) => dl.closest('details')?.open)).toBe(true)
    expect(await body.locator('pre.error').textContent()).toBe('STALE cache entry on call 10')
    expect(await body.locator('pre.output').textContent()).toBe('call 10\n')
    // The summary line says which repetition, how, and where it ran.
    expect(await page.locator(`details:has(${href}) summary`).textContent()).toMatch(/^#10 · fast · [\d.]+ ms · worker \d+ · order \d+ STALE cache entry on call 10$/)
    // The stack links its frame in the test file, relative to the report's folder, to the real file.
    const source = join(VITEST_FIXTURE, 'tests/counter.test.ts')
    const frame = body.locator('pre.stack a.src').first()
    expect(resolve(vitest, decodeURIComponent((await frame.getAttribute('href')) ?? ''))).toBe(source)
    const throwLine = readFileSync(source, 'utf8').split('\n').findIndex((line) => line.includes('throw new Error(`STALE')) + 1
    expect(await frame.textContent()).toContain(`${source}:${throwLine}:`)
    // The declaration's line, from the source: the line of its test( call.
    const declared = readFileSync(source, 'utf8').split('\n').findIndex((line) => line.includes("test('fails on every fifth call'")) + 1
    expect(await article.locator('p.where a.src').textContent()).toBe(`tests/counter.test.ts:${declared}`)
    expect(resolve(vitest, (await article.locator('p.where a.src').getAttribute('href')) ?? '')).toBe(source)
    expect(errors).toEqual([])
    await page.close()
  })

  it('Vitest: search, verdict filter and sort work, and the script runs under the page\'s CSP', async () => {
    const { page, errors } = await open(vitest)
    const tests = readArtifact(join(vitest, 'rate.json'), RateFileSchema).tests ?? []
    const notStable = tests.filter((t) => t.verdict !== 'stable').map((t) => t.id)
    // The toolbar is hidden in the markup; it shows only because the hashed script ran.
    expect(await page.locator('#find').isVisible()).toBe(true)
    expect((await visibleRows(page)).sort()).toEqual([...notStable].sort())
    // Words match anywhere in the id, case aside: the timing file's tests, in the table and in the stable list.
    await page.locator('#q').fill('TIMING')
    expect(await visibleRows(page)).toEqual(notStable.filter((id) => id.includes('timing')))
    const timing = tests.filter((t) => t.id.includes('timing'))
    expect(await page.locator('#find output').textContent()).toBe(`${timing.length} of ${tests.length} shown`)
    expect(await page.locator('section[data-section="broken"]').isVisible()).toBe(false)
    await page.locator('#q').fill('')
    await page.locator('#verdict').selectOption('broken')
    const broken = tests.filter((t) => t.verdict === 'broken').map((t) => t.id)
    expect(broken.length).toBeGreaterThan(0)
    expect((await visibleRows(page)).sort()).toEqual([...broken].sort())
    expect(await page.locator('section[data-section="flaky"]').isVisible()).toBe(false)
    await page.locator('#verdict').selectOption('stable')
    // The collapsed list of stable tests opens to show them.
    expect(await page.locator('details.stable').evaluate((d) => d.open)).toBe(true)
    expect(await page.locator('details.stable li:visible').count()).toBe(tests.filter((t) => t.verdict === 'stable').length)
    await page.locator('#verdict').selectOption('')
    await page.locator('#sort').selectOption('name')
    expect(await visibleRows(page)).toEqual([...notStable].sort())
    await page.locator('#sort').selectOption('failures')
    const byFailures = await visibleRows(page)
    const failuresOf = (id: string): number => tests.find((t) => t.id === id)?.failures ?? -1
    expect(byFailures.map(failuresOf)).toEqual(byFailures.map(failuresOf).sort((a, b) => b - a))
    expect(errors).toEqual([])
    await page.close()
  })

  it("Vitest without JavaScript: no toolbar, and following a mark's link still opens its repetition", async () => {
    const plain = await browser.newContext({ javaScriptEnabled: false, viewport: DESKTOP })
    const { page, errors } = await open(vitest, plain)
    expect(await page.locator('#find').isVisible()).toBe(false)
    const mark = page.locator('svg.strip a.marklink').first()
    const href = (await mark.getAttribute('href')) ?? ''
    await mark.click()
    // Chromium opens a closed <details> that a followed link points into.
    expect(await page.locator(href).isVisible()).toBe(true)
    expect(await page.locator('details.rep[open]').count()).toBe(1)
    expect(errors).toEqual([])
    await plain.close()
  })

  it('Vitest with --lang ko: the whole page in Korean, apart from ids, numbers and code', async () => {
    const { page, errors } = await open(korean)
    expect(await page.locator('html').getAttribute('lang')).toBe('ko')
    const prose = z.array(z.string()).parse(await page.evaluate(PROSE))
    const rate = readArtifact(join(korean, 'rate.json'), RateFileSchema)
    const facts = readFileSync(join(korean, 'facts.jsonl'), 'utf8').split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as Record<string, unknown>)
    const printed = facts.flatMap((f) => [f.error, f.stdout, f.stderr].flatMap((text) => (typeof text === 'string' ? text.split('\n') : [])))
    const observer = readArtifact(join(korean, 'observer.json'), ObserverFileSchema)
    const user = [rate.command, observer.command, ...(rate.tests ?? []).map((t) => t.id), ...printed]
    expect(prose.flatMap((text) => englishLeft(text, user).map((word) => `${word} in ${JSON.stringify(text.trim().slice(0, 100))}`))).toEqual([])
    expect(await page.locator('#find output').textContent()).toMatch(/^\d+개 중 \d+개 표시$/)
    await page.screenshot({ fullPage: true, path: join(shots, 'vitest-ko-desktop.png') })
    expect(errors).toEqual([])
    await page.close()
  })

  it('report --html --open without a desktop says it could not open a browser and prints the path', async () => {
    const result = await runNodeIn(ROOT, [BIN, 'report', '--dir', lab, '--html', '--open'], { DISPLAY: '', WAYLAND_DISPLAY: '' })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr).toContain(`could not open a browser (no desktop (DISPLAY and WAYLAND_DISPLAY are not set)); the report is at ${join(lab, 'report.html')}`)
  })
})
