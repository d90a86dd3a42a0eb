import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { ObserverFile, OnlyWhenFailFile, PolicyFile, RateFile } from '../../src/artifacts/schemas.js'
import { ObserverFileSchema, OnlyWhenFailFileSchema, PolicyFileSchema, RateFileSchema } from '../../src/artifacts/schemas.js'
import { stripAnsi } from '../../src/core/ansi.js'
import { hintContextOf, hintsFor } from '../../src/core/hints.js'
import { byConcern, type TestOutcome } from '../../src/pipeline/test-bundle.js'
import { renderTable } from '../../src/session/_table.js'
import { ROOT } from '../utils.js'

/**
 * The README is a front door (issue 21): what flakeproof is, install, three quick starts, a short
 * reading of the numbers, and links to the guides in docs/ where everything else moved. These
 * checks keep it that way, and keep every link of the README and the guides pointing at a file.
 */

const README = readFileSync(join(ROOT, 'README.md'), 'utf8')
const pages = (dir: string): string[] => readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? pages(join(dir, e.name)) : e.name.endsWith('.md') ? [join(dir, e.name)] : []))
const DOCS = ['README.md', ...pages('docs')]

/** Relative link targets of a markdown file, outside code blocks, without their #anchor. */
function links(text: string): string[] {
  const prose = text.replace(/```[\s\S]*?```/g, '')
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] ?? '').filter((t) => !/^(https?:|mailto:|#)/.test(t)).map((t) => t.split('#')[0] ?? t)
}

describe('README.md', () => {
  it('is a front door: at most 300 lines, with the install command and the three quick starts', () => {
    expect(README.split('\n').length).toBeLessThanOrEqual(300)
    expect(README).toContain('npm i -D flakeproof')
    for (const heading of ['## Quick start: Vitest', '## Quick start: Jest', '## Quick start: any command', '## Reading the numbers', '## Guides']) expect(README).toContain(heading)
  })

  it('keeps the two commands a fresh clone runs, and they are scripts of package.json', () => {
    expect(README).toContain('npm ci && npm run demo')
    expect(README).toContain('npm ci && npm test')
    const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    expect(Object.keys(scripts)).toEqual(expect.arrayContaining(['demo', 'test']))
  })

  it('links every guide page in docs/', () => {
    const linked = new Set(links(README))
    expect(pages('docs').filter((page) => !linked.has(page))).toEqual([])
  })
})

describe.each(DOCS)('%s', (page) => {
  it('links only to files that exist', () => {
    const missing = links(readFileSync(join(ROOT, page), 'utf8')).filter((target) => !existsSync(join(ROOT, dirname(page), target)))
    expect(missing).toEqual([])
  })
})

/**
 * The terminal blocks of the README and the guides, rendered by the code's current table from a
 * recorded run's files (test/fixtures/recorded-runs/<name>/: its README says how it was recorded),
 * so no block goes stale when the table changes. `npm run docs:output` (FLAKEPROOF_UPDATE_DOCS=1)
 * writes them in.
 */
const BLOCKS: readonly [name: string, page: string][] = [
  ['vitest-basic', 'README.md'],
  ['vitest-basic-observe', 'docs/vitest.md'],
  ['jest-basic-observe', 'docs/jest.md'],
]

describe('the output blocks of the docs', () => {
  it.each(BLOCKS)('%s in %s is what the table renders from its recorded run, at 80 columns', (name, page) => {
    const dir = join(ROOT, 'test/fixtures/recorded-runs', name)
    const read = <T>(file: string, schema: { parse(value: unknown): T }): T | undefined => (existsSync(join(dir, file)) ? schema.parse(JSON.parse(readFileSync(join(dir, file), 'utf8'))) : undefined)
    const rate = read('rate.json', RateFileSchema)
    expect(rate, `${dir}/rate.json`).toBeDefined()
    const rendered = renderRecorded(rate as RateFile, read('policy.json', PolicyFileSchema), read('only_when_fail.json', OnlyWhenFailFileSchema), read('observer.json', ObserverFileSchema))
    const text = readFileSync(join(ROOT, page), 'utf8')
    const marker = `<!-- output: ${name} `
    const at = text.indexOf(marker)
    expect(at, marker).toBeGreaterThan(-1)
    const open = text.indexOf('```\n', at) + 4
    const close = text.indexOf('```\n', open)
    const block = `${rendered.join('\n')}\n`
    if (process.env.FLAKEPROOF_UPDATE_DOCS === '1') writeFileSync(join(ROOT, page), text.slice(0, open) + block + text.slice(close))
    else expect(text.slice(open, close)).toBe(block)
  })
})

/** The end-of-run table for the tests a run's files hold, as the session renders it from their tallies. */
function renderRecorded(rate: RateFile, policy: PolicyFile | undefined, onlyWhenFail: OnlyWhenFailFile | undefined, observer: ObserverFile | undefined): string[] {
  const outcomes = (rate.tests ?? [])
    .filter((test) => test.verdict !== 'stable')
    .map((test) => ({
      // Only what the table reads of a tally: the rest of a TestOutcome does not reach it.
      tally: {
        id: test.id,
        project: test.project,
        file: test.file,
        name: test.name,
        errors: onlyWhenFail?.tests?.[test.id]?.errors_on_failure ?? [],
        fast: { failures: test.failures, trials: test.trials },
        slow: slowOf(observer, test.id),
      },
      verdict: test.verdict,
      ci: { low: test.ci_low, high: test.ci_high },
      greenRuns: policy?.tests?.[test.id]?.green_runs_required ?? null,
    }) as unknown as TestOutcome)
    .sort(byConcern)
  return renderTable(outcomes, { width: 80, hints: hintsFor(hintContextOf(rate)), confidence: rate.confidence, repeat: rate.trials }).map(stripAnsi)
}

/** A test's gapped repetitions as observer.json has them; none when the run did not observe. */
function slowOf(observer: ObserverFile | undefined, id: string): { failures: number; trials: number; gapMs: number } {
  const slow = observer?.tests?.[id]?.slow
  return slow ? { failures: slow.failures, trials: slow.trials, gapMs: slow.gap_ms } : { failures: 0, trials: 0, gapMs: 0 }
}
