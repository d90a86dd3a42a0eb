import { spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
// @ts-expect-error: a plain .mjs module of the bench, shared so the suite and the bench generate the same reports.
import { writeLargeReport } from '../../bench/junit-report.mjs'
import { describe, expect, it } from 'vitest'
import { CHUNK_BYTES } from '../../src/artifacts/_chunks.js'
import { MAX_CASE_TEXT, type ReadCounters } from '../../src/artifacts/junit-read.js'
import { RateFileSchema } from '../../src/artifacts/schemas.js'
import { ingestReports } from '../../src/pipeline/ingest.js'
import { BIN, readArtifact, ROOT, tempDir } from '../utils.js'


const confidence = { value: 0.95, exact: { num: 19n, den: 20n } }

/**
 * What one report may hold at once, whatever its size: the chunk being parsed (at most CHUNK_BYTES
 * characters); sax's buffer of the text node being read, which it hands over once past its
 * MAX_BUFFER_LENGTH of 64 KiB, checked once per write, so at most 2 × 64 KiB; and, for the test case
 * being read, its failure text and its two output streams, each capped at MAX_CASE_TEXT.
 */
const HELD_BOUND = CHUNK_BYTES + 2 * 64 * 1024 + 3 * MAX_CASE_TEXT

function report(run: number): string {
  // `b` fails in every 4th run (runs 4, 8, …): 2 500 of 10 000, exactly.
  const b = run % 4 === 0 ? `<failure message="run ${run}">boom</failure>` : ''
  return `<?xml version="1.0"?>
<testsuites><testsuite name="s">
<testcase classname="m" name="a" time="0.001"/>
<testcase classname="m" name="b" time="0.002">${b}</testcase>
<testcase classname="m" name="c" time="0.001"><system-out>run ${run}</system-out></testcase>
</testsuite></testsuites>
`
}

describe('ingest --junit streams its reports', () => {
  it('reads 10 000 reports one at a time, holding at most one chunk and one test case’s capped text', () => {
    const dir = tempDir()
    const reports = join(dir, 'reports')
    mkdirSync(reports)
    for (let run = 1; run <= 10_000; run++) writeFileSync(join(reports, `run-${run}.xml`), report(run))
    const counters: ReadCounters = { files: 0, bytes: 0, maxHeldChars: 0 }
    const out = join(dir, 'out')
    const result = ingestReports(out, { format: 'junit', pattern: `${reports}/*.xml`, confidence, lang: 'en', counters })
    // Each report is read twice, one at a time: its names first, then its results (src/pipeline/report-runs.ts).
    expect(counters.files).toBe(20_000)
    expect(counters.maxHeldChars).toBeLessThanOrEqual(HELD_BOUND)
    expect(result).toMatchObject({ runs: 10_000, complete: true })
    const rate = readArtifact(join(out, 'rate.json'), RateFileSchema)
    expect(rate.tests?.map((t) => [t.id, t.trials, t.failures])).toEqual([
      ['m > b', 10_000, 2_500],
      ['m > a', 10_000, 0],
      ['m > c', 10_000, 0],
    ])
    // Runs come in numeric path order (run-2 before run-10): b's failing runs are 4, 8, 12, …
    expect(readFileSync(join(out, 'only_when_fail.json'), 'utf8')).toContain('"failure_trials": [\n        4,\n        8,\n        12,')
  }, 120_000)

  it('holds no more of one 8 MB report than of a small one', () => {
    const dir = tempDir()
    const big = join(dir, 'big.xml')
    const output = 'x'.repeat(8 * 1024 * 1024)
    writeFileSync(big, `<testsuite name="s"><testcase classname="m" name="chatty"><system-out>${output}</system-out><failure message="late">${output}</failure></testcase></testsuite>`)
    const counters: ReadCounters = { files: 0, bytes: 0, maxHeldChars: 0 }
    const result = ingestReports(join(dir, 'out'), { format: 'junit', pattern: big, confidence, lang: 'en', counters })
    expect(counters.bytes).toBeGreaterThan(16 * 1024 * 1024)
    expect(counters.maxHeldChars).toBeLessThanOrEqual(HELD_BOUND)
    expect(result.outcomes.map((o) => [o.tally.id, o.tally.fast.failures])).toEqual([['m > chatty', 1]])
  })

  it('peaks under 300 MB of memory on a 40 MB report, the bench’s 250 MB case scaled down (bench/ingest-memory.mjs)', () => {
    const dir = tempDir()
    const report = join(dir, 'big.xml')
    // 800 cases of 48 KiB output (every 7th failing with a trace): the shape bench/ingest-memory.mjs uses at 250 MB.
    const bytes = writeLargeReport(report, { cases: 800, outputBytes: 48 * 1024 }) as number
    expect(bytes).toBeGreaterThan(40_000_000)
    const rss = join(dir, 'rss')
    const result = spawnSync(process.execPath, ['--import', join(ROOT, 'bench/_max-rss.mjs'), BIN, 'ingest', '--junit', report, '--out-dir', join(dir, 'out')], {
      env: { ...process.env, MAX_RSS_FILE: rss },
      encoding: 'utf8',
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    expect(result.status, result.stderr).toBe(0)
    // KiB: what the kernel counted for the whole process, Node itself included.
    expect(Number(readFileSync(rss, 'utf8'))).toBeLessThan(300 * 1024)
  }, 120_000)
})
