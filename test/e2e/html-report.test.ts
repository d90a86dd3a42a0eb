import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { type BrowserContext, chromium, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ObserverFileSchema, ProofFileSchema, RateFileSchema } from '../../src/artifacts/schemas.js'
import { distinctColours } from '../png.js'
import { BIN, labCommand, readArtifact, ROOT, runCli, runNodeIn, runVitest, tempDir } from '../utils.js'

/**
 * report.html in a real browser: Debian's chromium driven by playwright-core. Missing chromium is a
 * failure, never a skip (`.ci/run` installs it). FLAKEPROOF_WRITE_SCREENSHOT=1 refreshes docs/report.png.
 */
const CHROMIUM = '/usr/bin/chromium'
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`

interface Opened {
  page: Page
  requests: string[]
  errors: string[]
}

describe('report.html in headless Chromium', () => {
  const dir = tempDir()
  const lab = join(dir, 'lab')
  const vitest = join(dir, 'vitest')
  let context: BrowserContext

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
    context = await chromium.launchPersistentContext(tempDir('flakeproof-chromium-'), { executablePath: CHROMIUM, headless: true, args: ARGS, viewport: { width: 1000, height: 900 } })
  }, 120_000)

  afterAll(async () => {
    await context?.close()
  })

  async function open(folder: string): Promise<Opened> {
    const url = pathToFileURL(join(folder, 'report.html')).href
    const page = await context.newPage()
    const requests: string[] = []
    const errors: string[] = []
    page.on('request', (request) => requests.push(request.url()))
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text())
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
    const light = await page.screenshot({ fullPage: true })
    await page.emulateMedia({ colorScheme: 'dark' })
    const dark = await page.screenshot({ fullPage: true })
    await page.setViewportSize({ width: 360, height: 800 })
    await page.emulateMedia({ colorScheme: 'light' })
    const narrow = await page.screenshot({ fullPage: true })
    // Nothing wider than the 360 px screen: tables reflow or scroll inside their own box.
    expect(await page.evaluate('document.documentElement.scrollWidth'), `${name} narrow width`).toBeLessThanOrEqual(360)
    await page.setViewportSize({ width: 1000, height: 900 })
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

    expect(await page.locator('[data-verdict="flaky"] b').textContent()).toBe('1')
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
      expect(await page.locator(`[data-verdict="${verdict}"] b`).textContent(), verdict).toBe(String(tests.filter((t) => t.verdict === verdict).length))
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

  it('report --html --open without a desktop says it could not open a browser and prints the path', async () => {
    const result = await runNodeIn(ROOT, [BIN, 'report', '--dir', lab, '--html', '--open'], { DISPLAY: '', WAYLAND_DISPLAY: '' })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr).toContain(`could not open a browser (no desktop (DISPLAY and WAYLAND_DISPLAY are not set)); the report is at ${join(lab, 'report.html')}`)
  })
})
