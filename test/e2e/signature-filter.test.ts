import { cpSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { FactSchema, RateFileSchema } from '../../src/artifacts/schemas.js'
import { BIN, readArtifact, ROOT, runFlakeproofVitest, runNodeIn, tempDir } from '../utils.js'

const FIXTURE = join(ROOT, 'test/fixtures/vitest-attribution')
const PRICE = 'tests/shop.test.ts > reads the cached price'
const STALE = 'Error: STALE price cache on call <n> @ src/price.ts (fetchPrice)'
const NEW_WAY = 'TypeError: Cannot read properties of undefined (reading <str>) @ src/price.ts (convertCurrency)'

describe('--signature in command mode', () => {
  it('counts only the failures of that signature and reports the others apart', async () => {
    const dir = tempDir()
    // Call n fails the new way when n % 10 = 0, else STALE when n % 4 = 0 (a counter, never Math.random).
    writeFileSync(
      join(dir, 'job.mjs'),
      [
        "import { existsSync, readFileSync, writeFileSync } from 'node:fs'",
        "const n = (existsSync('count') ? Number(readFileSync('count', 'utf8')) : 0) + 1",
        "writeFileSync('count', String(n))",
        'function convert(rates) { return rates.EUR.rate }',
        'function load(call) { throw new Error(`STALE price cache on call ${call}`) }',
        'if (n % 10 === 0) convert({})',
        'if (n % 4 === 0) load(n)',
        '',
      ].join('\n'),
    )
    const result = await runNodeIn(dir, [BIN, 'measure', '--cmd', 'node job.mjs', '--trials', '20', '--signature', 'STALE price cache', '--out', 'rate.json'])
    expect(result.code, result.stderr).toBe(0)
    const rate = readArtifact(join(dir, 'rate.json'), RateFileSchema)
    // 20 calls: 10 and 20 fail the new way (left out), 4, 8, 12 and 16 STALE: 4 of 18 counted trials.
    expect([rate.trials, rate.failures, rate.requested_trials]).toEqual([18, 4, 20])
    expect(rate.signature_filter).toBe('STALE price cache')
    expect(rate.other_failures).toEqual({ count: 2, signatures: [{ signature: "TypeError: Cannot read properties of undefined (reading <str>) @ job.mjs (convert)", count: 2 }] })
    expect(result.stderr).toContain('other failures: 2, signatures `TypeError: Cannot read properties of undefined (reading <str>) @ job.mjs (convert)` 2×')
    // Twenty node processes, one after another.
  }, 120_000)

  it('collect writes each failed trial\'s signature: its first error line, normalised', async () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'job.mjs'), "console.error('Error: disk full on /tmp/a1b2c3'); process.exit(1)\n")
    const result = await runNodeIn(dir, [BIN, 'collect', '--cmd', 'node job.mjs', '--trials', '2', '--out', 'facts.jsonl'])
    expect(result.code, result.stderr).toBe(0)
    const facts = readFileSync(join(dir, 'facts.jsonl'), 'utf8').trim().split('\n').map((l) => FactSchema.parse(JSON.parse(l)))
    expect(facts.map((f) => f.signature)).toEqual(['Error: disk full on <path>', 'Error: disk full on <path>'])
  })
})

describe('--flaky-signature and the comparison with history (Vitest)', () => {
  /** A local measurement of the price test, 35 repetitions, beside the 30 recorded everyday runs on main. */
  async function measure(extra: string[]): Promise<{ out: string; stdout: string; code: number | null }> {
    const dir = tempDir()
    const out = join(dir, 'out')
    cpSync(join(FIXTURE, 'recorded/history'), join(out, 'history'), { recursive: true })
    const env = { FIXTURE_OUT: join(dir, 'everyday'), FIXTURE_STATE: join(dir, 'state'), FIXTURE_PER_CALL: '1', FIXTURE_NEW_WAY_EVERY: '7' }
    const result = await runFlakeproofVitest(['--flaky-repeat', '35', '--flaky-out', out, '--flaky-out-anywhere', ...extra, '-t', 'reads the cached price'], env, FIXTURE)
    return { out, stdout: result.stdout + result.stderr, code: result.code }
  }

  it('without a filter: 11 of 35 failed two ways, one of them new to history', async () => {
    const { out, stdout } = await measure([])
    const test = readArtifact(join(out, 'rate.json'), RateFileSchema).tests?.find((t) => t.id === PRICE)
    // Calls 7, 14, 21, 28, 35 fail the new way; 5, 10, 15, 20, 25, 30 STALE: 11 of 35.
    expect([test?.trials, test?.failures]).toEqual([35, 11])
    expect(test?.compared_with_history).toMatchObject({ branch: 'main', runs: 30, failures: 6, rate_consistent: true, shared_signatures: [STALE], new_signatures: [NEW_WAY], same_bug: false })
    expect(stdout).toContain(`${PRICE}: not plausibly the same bug as CI: rate consistent with 6/30 on main`)
  }, 180_000)

  it('with --flaky-signature STALE: 6 of 30 counted, 5 reported apart, and plausibly the same bug as CI', async () => {
    const { out, stdout } = await measure(['--flaky-signature', 'STALE price cache'])
    const rate = readArtifact(join(out, 'rate.json'), RateFileSchema)
    const test = rate.tests?.find((t) => t.id === PRICE)
    expect([test?.trials, test?.failures]).toEqual([30, 6])
    expect(test?.other_failures).toEqual({ count: 5, signatures: [{ signature: NEW_WAY, count: 5 }] })
    // 6/30 here and 6/30 on main: Fisher's two-sided p is 1.
    expect(test?.compared_with_history).toMatchObject({ runs: 30, failures: 6, p_value: 1, rate_consistent: true, new_signatures: [], same_bug: true })
    expect(stdout).toContain(`${PRICE}: other failures: 5, signatures \`${NEW_WAY}\` 5×`)
    expect(stdout).toContain(`${PRICE}: plausibly the same bug as CI: rate consistent with 6/30 on main (Fisher p = 1.00); same signature as history`)
    // The facts keep all 35 executions, the 5 left out marked.
    const lines = readFileSync(join(out, 'facts.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { excluded?: boolean })
    expect([lines.length, lines.filter((l) => l.excluded).length]).toEqual([35, 5])
  }, 180_000)
})

describe('--flaky-signature with Jest: its copies carry their signatures', () => {
  const JEST_FIXTURE = join(ROOT, 'test/fixtures/jest-attribution')
  const JEST_PRICE = 'tests/shop.test.js > reads the cached price'
  const JEST_STALE = 'Error: STALE price cache on call <n> @ src/price.js (fetchPrice)'
  // Jest's source map names the frame by the property read there (`rates.EUR.rate`), not by its function.
  const JEST_NEW_WAY = 'TypeError: Cannot read properties of undefined (reading <str>) @ src/price.js (rate)'

  it('35 copies: only the 6 STALE failures of 30 counted, the 5 others reported apart, and the same bug as the Jest history', async () => {
    const dir = tempDir()
    const out = join(dir, 'out')
    // Beside the 30 recorded everyday Jest runs on main (6/30 STALE).
    cpSync(join(JEST_FIXTURE, 'recorded/history'), join(out, 'history'), { recursive: true })
    const env = { FIXTURE_STATE: join(dir, 'state'), FIXTURE_PER_CALL: '1', FIXTURE_NEW_WAY_EVERY: '7' }
    const args = [BIN, 'jest', '--flaky-repeat', '35', '--flaky-signature', 'STALE price cache', '--flaky-out', out, '--flaky-out-anywhere', '-t', 'reads the cached price']
    const result = await runNodeIn(JEST_FIXTURE, args, env)
    // Copies' failures are advisory in a measurement.
    expect(result.code, result.stderr).toBe(0)
    const rate = readArtifact(join(out, 'rate.json'), RateFileSchema)
    const test = rate.tests?.find((t) => t.id === JEST_PRICE)
    // Calls 7, 14, 21, 28, 35 fail the new way (left out); 5, 10, 15, 20, 25, 30 STALE: 6 of 30 counted.
    expect([test?.trials, test?.failures]).toEqual([30, 6])
    expect(rate.signature_filter).toBe('STALE price cache')
    expect(test?.other_failures).toEqual({ count: 5, signatures: [{ signature: JEST_NEW_WAY, count: 5 }] })
    // 6/30 here and 6/30 on main: Fisher's two-sided p is 1.
    expect(test?.compared_with_history).toMatchObject({ branch: 'main', runs: 30, failures: 6, p_value: 1, rate_consistent: true, shared_signatures: [JEST_STALE], new_signatures: [], same_bug: true })
    expect(result.stderr).toContain(`${JEST_PRICE}: other failures: 5, signatures \`${JEST_NEW_WAY}\` 5×`)
    expect(result.stderr).toContain(`${JEST_PRICE}: plausibly the same bug as CI: rate consistent with 6/30 on main (Fisher p = 1.00); same signature as history`)
    // Every copy is a fact; the 5 left out are marked, with their signature.
    const facts = readFileSync(join(out, 'facts.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { excluded?: boolean; signature?: string; outcome: string })
    expect([facts.length, facts.filter((f) => f.excluded).length]).toEqual([35, 5])
    expect(facts.filter((f) => f.excluded).every((f) => f.signature === JEST_NEW_WAY)).toBe(true)
    expect(facts.filter((f) => f.outcome === 'failed' && !f.excluded).every((f) => f.signature === JEST_STALE)).toBe(true)
  }, 180_000)
})
