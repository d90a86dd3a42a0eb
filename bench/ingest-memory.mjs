#!/usr/bin/env node
// Peak memory of `flakeproof ingest` on one large report (issue 19: a 250 MB report peaked at 2.2 GB;
// target: under 300 MB). Run after `npm run build`: `node bench/ingest-memory.mjs [megabytes] [output bytes per case]`;
// `--smoke` (or BENCH_SMOKE=1): a 2 MB report, to check the bench still runs (test/e2e/bench-smoke.test.ts).
// The suite checks the same bound at a smaller scale (test/unit/ingest-memory.test.ts); this is the
// full-size case, too slow for every CI run.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { printRatio, SMOKE } from './_harness.mjs'
import { writeLargeReport } from './junit-report.mjs'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const numbers = process.argv.slice(2).filter((arg) => arg !== '--smoke')
const megabytes = Number(numbers[0] ?? (SMOKE ? 2 : 250))
const dir = mkdtempSync(join(tmpdir(), 'ingest-memory-'))
try {
  const report = join(dir, 'big.xml')
  // The text is the bulk, as in real large reports: 48 KiB of output and a failure's trace per case,
  // about 5 000 cases. (With 50 000 cases of 4 KiB the peak was 429 MB: that is the measurement's own
  // per-test files, rate.json to report.html, which grow with the number of tests, not with text.)
  const outputBytes = Number(numbers[1] ?? 48 * 1024)
  const cases = Math.round((megabytes * 1024 * 1024) / (outputBytes * 1.045 + 200))
  writeLargeReport(report, { cases, outputBytes })
  const rss = join(dir, 'rss')
  const result = spawnSync(process.execPath, ['--import', join(ROOT, 'bench/_max-rss.mjs'), join(ROOT, 'dist/src/cli/bin.js'), 'ingest', '--junit', report, '--out-dir', join(dir, 'out')], {
    env: { ...process.env, MAX_RSS_FILE: rss },
    encoding: 'utf8',
    // Its JSON names every test: not read here.
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  if (result.status !== 0) throw new Error(`ingest exited ${result.status}: ${result.stderr}`)
  const peak = Number(readFileSync(rss, 'utf8')) / 1024
  const size = statSync(report).size / 1024 / 1024
  printRatio('ingest peak RSS vs 300 MB', peak / 300, { at_most: 1 }, `ingest of a ${size.toFixed(0)} MB report (${cases} test cases): peak RSS ${peak.toFixed(0)} MB`)
} finally {
  rmSync(dir, { recursive: true, force: true })
}
