import { createHash } from 'node:crypto'
// @ts-expect-error jsdom ships no types and this project installs none: only its HTML parser is used here.
import { JSDOM } from 'jsdom'
import { describe, expect, it } from 'vitest'
import { renderHtmlReport } from '../../src/artifacts/html.js'
import { binStrip, capText, DURATION_POINTS, ExecutionCollector, FAILURES_IN_FULL, STRIP_MARKS, TEXT_CHARS, toExecutionLine } from '../../src/artifacts/html-executions.js'
import { framesOf, linkFrames, sourceLink } from '../../src/artifacts/html-source.js'
import { DETAILED_SUBJECTS, detailedSubjects, sectionsOf, TABLE_ROWS } from '../../src/artifacts/html-subjects.js'
import type { RateFile } from '../../src/artifacts/schemas.js'
import { rateFile, testRate } from '../rate-file.js'
import { fullExecutions, fullTestBundle, IDS } from '../report-bundle.js'

// Wilson 95% for 2 of 10 (z = 1.96): [0.0567, 0.5098] (docs/contracts.md §2, hand computation).
const measured = { trials: 10, failures: 2, rate: 0.2, ci_low: 0.0567, ci_high: 0.5098 }

function commandRate(extra: Partial<RateFile> = {}): RateFile {
  return rateFile(measured, { command: 'node job.js', duration_ms: 1200, independence: null, ...extra })
}

/** Trials 1..n of one subject, failing where `fails(trial)`, each lasting `trial` ms. */
function collect(subject: string, n: number, fails: (trial: number) => boolean, mode: 'fast' | 'slow' = 'fast'): ExecutionCollector {
  const collector = new ExecutionCollector([subject])
  for (let trial = 1; trial <= n; trial++) {
    const error = fails(trial) ? `STALE on call ${trial}\n  at job.js:1` : null
    collector.add({ subject, trial, failed: fails(trial), elapsedMs: trial, mode, error, fact: { trial, error, stdout: '', stderr: '' } })
  }
  return collector
}

describe('the per-execution summaries of report.html', () => {
  it.each([
    // [executions, marks, executions per mark]: ceil(n / 400) per mark, ceil(n / per mark) marks.
    [10, 10, 1],
    [400, 400, 1],
    [401, 201, 2],
    [100_000, 400, 250],
  ])('bins %i executions into %i marks of %i', (executions, marks, binSize) => {
    const trials = Int32Array.from({ length: executions }, (_, i) => i + 1)
    const failed = Uint8Array.from({ length: executions }, (_, i) => ((i + 1) % 5 === 0 ? 1 : 0))
    const segment = binStrip('fast', trials, failed, executions)
    expect(segment.marks).toHaveLength(marks)
    expect(segment.binSize).toBe(binSize)
    expect(segment.marks.length).toBeLessThanOrEqual(STRIP_MARKS)
    // Every fifth fails: floor(n / 5) failures, none lost to binning.
    expect(segment.failures).toBe(Math.floor(executions / 5))
    expect(segment.marks.reduce((sum, m) => sum + m.count, 0)).toBe(executions)
  })

  it('thins 100 000 durations to at most 200 points, keeping exact count, mean and range', () => {
    const summary = collect('t', 100_000, (trial) => trial % 5 === 0).summarise().subjects.get('t')
    const passed = summary?.durations.passed
    // 80 000 passes: the stride doubles from 1 until at most 200 remain: 80 000 / 512 → 157 points.
    expect(passed).toMatchObject({ count: 80_000, minMs: 1, maxMs: 99_999, stride: 512 })
    expect(passed?.points.length).toBeLessThanOrEqual(DURATION_POINTS)
    // Mean of 1..100 000 without the multiples of 5: (5 000 050 000 − 5·(1..20 000 sum = 200 010 000)) / 80 000 = 50 000.
    expect(passed?.meanMs).toBe(50_000)
    expect(summary?.firstError).toBe('STALE on call 5')
  })

  it('reads command-mode and test-mode fact lines, skips skipped ones and flags what is not a fact', () => {
    const fact = { trial: 3, outcome: 'failed', elapsed_ms: 12, stderr: 'BOOM' }
    expect(toExecutionLine(fact, 'cmd')).toEqual({ subject: 'cmd', trial: 3, failed: true, elapsedMs: 12, mode: 'fast', error: 'BOOM', fact })
    expect(toExecutionLine({ trial: 1, test_id: 'a > b', outcome: 'passed', elapsed_ms: 1, mode: 'slow', error: null }, null)).toMatchObject({ subject: 'a > b', mode: 'slow' })
    expect(toExecutionLine({ trial: 1, test_id: 'a', outcome: 'skipped', elapsed_ms: 0 }, null)).toBe('skipped')
    expect(toExecutionLine({ trial: 'x' }, null)).toBeUndefined()
    expect(toExecutionLine(null, null)).toBeUndefined()
  })
})

describe('renderHtmlReport', () => {
  it('lists the same error of each copy once, with how many times it came, beside one that came once', () => {
    const late = { project: '', file: 'a.test.ts', error: 'unhandled during "waits": rejected\n  at a.test.ts:3' }
    const html = renderHtmlReport({ rate: commandRate({ complete: false, run_errors: [late, late, late, { project: null, file: null, error: 'Worker exited' }] }) }, collect('node job.js', 1, () => false).summarise())
    expect(html).toContain('<b>4 error(s) outside any test</b>')
    expect(html).toContain('<li><code>a.test.ts</code>: <code>unhandled during &quot;waits&quot;: rejected</code> (3 times)</li>')
    expect(html).toContain('<li>no file: <code>Worker exited</code></li>')
  })

  it('draws the command, one mark per trial, and the proof from proof.json', async () => {
    const executions = collect('node job.js', 10, (trial) => trial % 5 === 0).summarise()
    const html = renderHtmlReport(
      {
        rate: commandRate(),
        proof: { schema_version: 1, command: 'node job.js --fixed', required: 3, required_from: '--runs', trials: 3, failures: 0, rate: 0, ci_low: 0, ci_high: 0.5615, passed: true, failure_trials: [], complete: true },
      },
      executions,
    )
    expect(html.match(/<rect class="mark /g)).toHaveLength(13)
    expect(html.match(/<rect class="mark fail"/g)).toHaveLength(2)
    expect(html.match(/class="mark pass mode-proof"/g)).toHaveLength(3)
    // No request can leave: no URL, no src; its one script is the one its CSP hash allows.
    expect(html).not.toMatch(/https?:\/\/|src=/)
    const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1] ?? '')
    expect(scripts).toHaveLength(1)
    const hash = createHash('sha256').update(scripts[0] ?? '').digest('base64')
    expect(html).toContain(`script-src 'sha256-${hash}'; base-uri 'none'`)
    await expect(html).toMatchFileSnapshot('./__snapshots__/html-report.command.html')
  })

  it('gives a non-idempotent test the command of its rate in ordinary runs as code, with no markdown backquote or shell backslash leaking', () => {
    // PFFFFFFFFF: passed repetition 1, then failed every one from 2 on (runs = 2).
    const independence = { runs: 2, expected_runs: 2.8, p_value: 0.4, method: 'exact' as const, pattern: 'one-switch' as const, switch_at: 2, switched_to: 'failed' as const, period: null }
    const tests = [{ id: 'a.test.ts > leaks', project: '', file: 'a.test.ts', name: 'leaks', trials: 10, failures: 9, rate: 0.9, ci_low: 0.5958, ci_high: 0.9821, verdict: 'non-idempotent' as const, independence }]
    const html = renderHtmlReport({ rate: commandRate({ command: 'flakeproof vitest --flaky-repeat 10', tests }) }, new ExecutionCollector([]).summarise())
    // Whole-run rounds of its file, each test once a run, so the tests before it still run (src/core/hints.ts plainRate).
    expect(html).toContain(
      'Measure its rate in ordinary runs instead, each test of its file once a run: <code class="cmd">npx flakeproof vitest --flaky-rounds 20 --flaky-repeat 1 a.test.ts</code>.',
    )
    const note = /<p class="warn">[^]*?<\/p>/.exec(html)?.[0] ?? ''
    expect(note).toContain('<code class="cmd">npx flakeproof vitest')
    expect(note).not.toMatch(/`|\\\$/)
  })

  it('escapes test names, which are user text', () => {
    const id = 'a.test.ts > <img src=x onerror=alert(1)> & "quoted"'
    const rate = commandRate({ command: 'vitest run', tests: [{ id, project: '', file: 'a.test.ts', name: id, ...measured, verdict: 'flaky' }] })
    const html = renderHtmlReport({ rate }, new ExecutionCollector([]).summarise())
    expect(html).not.toContain('<img')
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt; &amp; &quot;quoted&quot;')
  })

  it('stays bounded for 10 000 flaky tests of 100 000 repetitions each, and says it summarised', () => {
    const tests = Array.from({ length: 10_000 }, (_, i) => ({
      id: `t${String(i).padStart(5, '0')}.test.ts > flaky`,
      project: '',
      file: `t${i}.test.ts`,
      name: 'flaky',
      trials: 100_000,
      failures: 20_000,
      rate: 0.2,
      ci_low: 0.1975,
      ci_high: 0.2025,
      verdict: 'flaky' as const,
    }))
    const bundle = { rate: commandRate({ command: 'vitest run', trials: 100_000, failures: 100_000, rate: 1, ci_low: 0.99996, ci_high: 1, tests }) }
    const detailed = detailedSubjects(bundle).map((s) => s.id)
    expect(detailed).toHaveLength(DETAILED_SUBJECTS)
    const collector = new ExecutionCollector(detailed)
    for (const subject of detailed) {
      for (let trial = 1; trial <= 100_000; trial++) collector.add({ subject, trial, failed: trial % 5 === 0, elapsedMs: trial % 97, mode: 'fast', error: 'STALE', fact: { error: 'STALE' } })
    }
    const html = renderHtmlReport(bundle, collector.summarise())
    // 300 table rows, 20 strips of 400 marks and 20 duration plots of at most 400 points: about 2 MB.
    expect(html.length).toBeLessThan(3_000_000)
    // The rate table and the table of flaky tests not drawn: TABLE_ROWS each.
    expect(html.match(/<tr data-item data-count /g)?.length).toBe(TABLE_ROWS)
    expect(html.match(/<tr data-item data-id="[^"]*" data-verdict="flaky" data-tags=""><th/g)?.length).toBe(TABLE_ROWS)
    expect(html).toContain(`the first ${TABLE_ROWS} shown, ${10_000 - TABLE_ROWS} more in <code>rate.json</code>`)
    expect(html).toContain(`${10_000 - DETAILED_SUBJECTS} more not drawn in detail`)
    expect(html).toContain('250 executions per mark')
  })

  it('stays bounded when every failure of those 20 drawn tests carries a long error, stack and output', () => {
    const tests = Array.from({ length: 10_000 }, (_, i) => ({ ...testRate(`t${i}`, 20_000, 0.1975, 0.2025, 'flaky', 100_000), id: `t${String(i).padStart(5, '0')}` }))
    const bundle = { rate: commandRate({ command: 'vitest run', trials: 100_000, failures: 100_000, rate: 1, ci_low: 0.99996, ci_high: 1, tests }) }
    const detailed = detailedSubjects(bundle).map((s) => s.id)
    const collector = new ExecutionCollector(detailed)
    // 100 000-character texts, all markup: each is cut to TEXT_CHARS characters as the page writes them (`<` as `&lt;`).
    const long = '<b>"&</b>'.repeat(11_112)
    for (const subject of detailed) {
      for (let trial = 1; trial <= 100_000; trial++) {
        const failed = trial % 5 === 0
        collector.add({ subject, trial, failed, elapsedMs: 1, mode: 'fast', error: 'E', fact: failed ? { error: long, stack: long, stdout: long, stderr: long, worker: '1', order: 1 } : {} })
      }
    }
    const summaries = collector.summarise()
    expect(summaries.subjects.get(detailed[0] ?? '')).toMatchObject({ failures: 20_000 })
    expect(summaries.subjects.get(detailed[0] ?? '')?.failing).toHaveLength(FAILURES_IN_FULL)
    const html = renderHtmlReport(bundle, summaries)
    // About 2.5 MB of plots and tables (above) plus 20 tests × 20 failures × (2 000 + 3 000 + 1 500 + 1 500) characters = 3.2 MB,
    // and a few hundred characters of markup per repetition.
    expect(html.length).toBeLessThan(6_500_000)
    expect(html.match(/<details class="rep"/g)).toHaveLength(DETAILED_SUBJECTS * FAILURES_IN_FULL)
    expect(html).toContain(`The first ${FAILURES_IN_FULL} of 20000 in full`)
  })
})

describe('drilling into a test', () => {
  const bundle = fullTestBundle()
  const executions = fullExecutions(bundle, detailedSubjects(bundle).map((s) => s.id))
  const html = renderHtmlReport(bundle, executions)
  const { document } = new JSDOM(html).window
  const article = (id: string) => document.querySelector(`article[data-id="${id}"]`)

  it('gives each verdict its own section, order-dependent tests theirs, and a verdict it does not know a section too', () => {
    const sections = [...document.querySelectorAll('section[data-section]')].map((s) => [s.getAttribute('data-section'), [...s.querySelectorAll('article')].map((a) => a.getAttribute('data-id'))])
    expect(sections).toEqual([
      ['flaky', [IDS.flaky]],
      ['non-idempotent', [IDS.leaks]],
      ['order-dependent', [IDS.order]],
      ['undetermined', [IDS.undetermined]],
      ['broken', [IDS.broken]],
      ['partial', [IDS.partial]],
      ['mystery', [IDS.unknown]],
    ])
    expect(document.querySelector('section[data-section="mystery"] h2')?.textContent).toBe('Verdict mystery 1')
    // Stable tests are listed, collapsed.
    expect(document.querySelector('details.stable')?.hasAttribute('open')).toBe(false)
    expect([...document.querySelectorAll('details.stable li')].map((li) => li.getAttribute('data-id'))).toEqual([IDS.stable])
    // Every verdict is counted in the headline, the ones this page does not know too.
    expect([...document.querySelectorAll('.counts li')].map((li) => [li.getAttribute('data-verdict'), li.querySelector('b')?.textContent])).toEqual([
      ['flaky', '2'],
      ['broken', '1'],
      ['non-idempotent', '1'],
      ['undetermined', '1'],
      ['partial', '1'],
      ['stable', '1'],
      ['mystery', '1'],
    ])
  })

  it('shows each failing repetition behind a click: number, mode, duration, worker, order, error, stack and output', () => {
    const flaky = article(IDS.flaky)
    const reps = [...(flaky?.querySelectorAll('details.rep') ?? [])]
    // Trials 5, 10, 15 and 20 of 20 failed: all four in full, closed; then the proof's failed run 3.
    expect(reps.map((d) => d.querySelector('dl').id)).toEqual(['s1-r5', 's1-r10', 's1-r15', 's1-r20', 's1-p3'])
    expect(reps.every((d) => !d.hasAttribute('open'))).toBe(true)
    const first = reps[0]
    expect(first?.querySelector('summary')?.textContent).toBe('#5 · fast · 5.00 ms · worker 1 · order 2 STALE cache entry on call 5')
    expect(first?.querySelector('pre.error')?.textContent).toBe('STALE cache entry on call 5')
    expect(first?.querySelector('pre.stack')?.textContent).toContain('at /proj/tests/a.test.ts:7:11')
    expect(first?.querySelector('pre.output')?.textContent).toBe('call 5\n')
    // The proof's failing run, from proof_facts.jsonl, with its stderr.
    expect(flaky?.querySelector('#s1-p3 pre.output')?.textContent).toBe('warning: retrying\n')
  })

  it('makes each failing strip mark a link to its repetition, titled with its error', () => {
    const links = [...(article(IDS.flaky)?.querySelectorAll('svg.strip[data-mode="fast"] a.marklink') ?? [])]
    expect(links.map((a) => a.getAttribute('href'))).toEqual(['#s1-r5', '#s1-r10', '#s1-r15', '#s1-r20'])
    expect(links[0]?.querySelector('title')?.textContent).toBe('#5 failed (fast, 5.00 ms): STALE cache entry on call 5')
    expect(article(IDS.flaky)?.querySelector('svg.strip[data-mode="proof"] a.marklink')?.getAttribute('href')).toBe('#s1-p3')
  })

  it(`keeps the first ${FAILURES_IN_FULL} failing repetitions in full and counts the others`, () => {
    // The broken test failed all 20, the non-idempotent one 19 (trials 2–20): all in full.
    expect(article(IDS.broken)?.querySelectorAll('details.rep')).toHaveLength(20)
    const many = new ExecutionCollector(['t'])
    for (let trial = 1; trial <= 25; trial++) many.add({ subject: 't', trial, failed: true, elapsedMs: 1, mode: 'fast', error: 'E', fact: { error: 'E' } })
    expect(many.summarise().subjects.get('t')).toMatchObject({ failures: 25, failing: expect.any(Array) })
    expect(many.summarise().subjects.get('t')?.failing.map((f) => f.trial)).toEqual(Array.from({ length: FAILURES_IN_FULL }, (_, i) => i + 1))
  })

  it('links the declaration and each stack frame in the user\'s code to the file, relative to the report folder', () => {
    const declared = article(IDS.flaky)?.querySelector('p.where a.src')
    // report.html is in /proj/.flakeproof: the file is one folder up.
    expect(declared?.getAttribute('href')).toBe('../tests/a.test.ts')
    expect(declared?.textContent).toBe('tests/a.test.ts:6')
    const frames = [...(article(IDS.flaky)?.querySelectorAll('#s1-r5 pre.stack a.src') ?? [])]
    // The node_modules frame is not linked.
    expect(frames.map((a) => [a.getAttribute('href'), a.textContent])).toEqual([['../tests/a.test.ts', '/proj/tests/a.test.ts:7:11']])
  })

  it('says the order finding and every condition comparison in the order-dependent test', () => {
    const order = article(IDS.order)
    expect(order?.querySelector('[data-order="dependent"]')?.textContent).toBe(
      "Fails when tests/a.test.ts > writes the shared file runs before it: failed in 5 of 10 rounds after it, 0 of 10 rounds otherwise (Fisher's exact p = 0.0325, corrected for the tests that could have run before it). Replay a failing order with --flaky-seed 102; a passing one: --flaky-seed 101.",
    )
    expect([...(order?.querySelectorAll('table.conditions td') ?? [])].map((td) => td.textContent)).toEqual(['parallel (as configured) 1 of 2 rounds', 'serial 1 of 2 rounds', '1.00', '–'])
  })

  it('says a test fails unless another runs before it, naming each test the rounds cannot tell apart', () => {
    const entry = bundle.conditions?.tests[IDS.order]
    if (!bundle.conditions || !entry?.order) throw new Error('the bundle has an order finding')
    const needs = { ...entry.order, tied: ['tests/a.test.ts > seeds the shared file'], direction: 'needs' as const }
    const tests = { ...bundle.conditions.tests, [IDS.order]: { ...entry, order: needs } }
    const page = new JSDOM(renderHtmlReport({ ...bundle, conditions: { ...bundle.conditions, tests } }, executions)).window.document
    const text = page.querySelector(`article[data-id="${IDS.order}"] [data-order="dependent"]`)?.textContent ?? ''
    expect(text).toMatch(/^Fails unless tests\/a\.test\.ts > writes the shared file or tests\/a\.test\.ts > seeds the shared file runs before it: .* It needs state the test before it leaves: set it up in this test or its hooks\. These rounds support each of these 2 tests alike; more shuffled rounds may tell them apart\./)
    // Tests one describe block holds, which no shuffle parts: said so, the block's name as code.
    const together = { ...needs, together: { kind: 'block' as const, scope: ['shared <file>'] } }
    const inBlock = new JSDOM(renderHtmlReport({ ...bundle, conditions: { ...bundle.conditions, tests: { ...tests, [IDS.order]: { ...entry, order: together } } } }, executions)).window.document
    const note = inBlock.querySelector(`article[data-id="${IDS.order}"] [data-order="dependent"]`)
    expect(note?.textContent).toContain('These 2 tests run on the same side of it in every shuffled order (describe shared <file>, which a shuffle keeps whole), so no number of rounds tells them apart: the state is in them or their hooks.')
    expect([...(note?.querySelectorAll('code') ?? [])].map((c) => c.textContent)).toContain('shared <file>')
  })

  it('shows a command as code, without backquotes', () => {
    const note = article(IDS.leaks)?.querySelector('p.warn')
    // Its rate in ordinary runs of its file, the tests before it included (src/core/hints.ts plainRate).
    expect(note?.querySelector('code.cmd')?.textContent).toBe('npx vitest run tests/a.test.ts -- --flaky-rounds 20 --flaky-repeat 1')
    expect(note?.textContent).not.toContain('`')
  })

  it('carries the search, filter and sort controls hidden, for the script to show', () => {
    const form = document.querySelector('form#find')
    expect(form?.hasAttribute('hidden')).toBe(true)
    expect([...document.querySelectorAll('#verdict option')].map((o) => o.getAttribute('value'))).toEqual(['', 'flaky', 'broken', 'non-idempotent', 'undetermined', 'partial', 'stable', 'mystery', 'order-dependent'])
    expect([...document.querySelectorAll('#sort option')].map((o) => o.getAttribute('value'))).toEqual(['concern', 'rate', 'failures', 'name'])
  })

  it('shares the drawings among the sections, so many flaky tests cannot hide a broken one', () => {
    const tests = [...Array.from({ length: 30 }, (_, i) => testRate(`flaky ${String(i).padStart(2, '0')}`, 4, 0.0807, 0.416, 'flaky')), testRate('broken', 20, 0.8389, 1, 'broken')]
    const many = { rate: commandRate({ command: 'vitest run', tests }) }
    expect(sectionsOf(many).map((s) => [s.key, s.subjects.length])).toEqual([['flaky', 30], ['broken', 1]])
    // One each in turn: the broken test, then 19 flaky ones.
    const drawn = detailedSubjects(many)
    expect(drawn).toHaveLength(DETAILED_SUBJECTS)
    expect(drawn.filter((s) => s.verdict === 'broken')).toHaveLength(1)
  })
})

describe('links to the source', () => {
  const context = { reportDir: '/home/me/app/.flakeproof', cwd: '/home/me/app' }
  const title = (file: string): string => `opens ${file}`

  it.each([
    // [frame text, linked file and line]
    ['    at /home/me/app/src/a.ts:3:9', [{ file: '/home/me/app/src/a.ts', line: 3 }]],
    ['    at fn (file:///home/me/app/src/b%20c.mjs:12:1)', [{ file: '/home/me/app/src/b c.mjs', line: 12 }]],
    ['    at /home/me/app/node_modules/vitest/x.js:1:1', []],
    ['    at node:internal/process:1:1', []],
    ['❯ tests/relative.test.ts:4:5', []],
  ])('%s', (text, places) => {
    expect(framesOf(text)).toEqual(places)
  })

  it('links from the report folder, escapes what is not a frame, and shows the path from where the run started', () => {
    expect(linkFrames('<b> at /home/me/app/src/a.ts:3:9', context, title)).toBe('&lt;b&gt; at <a class="src" href="../src/a.ts" title="opens /home/me/app/src/a.ts">/home/me/app/src/a.ts:3:9</a>')
    expect(sourceLink({ file: '/home/me/app/tests/a b.test.ts', line: 7 }, context, title)).toBe('<a class="src" href="../tests/a%20b.test.ts" title="opens /home/me/app/tests/a b.test.ts"><code>tests/a b.test.ts:7</code></a>')
    // Without a context (a page from memory) nothing is linked.
    expect(linkFrames('at /home/me/app/src/a.ts:3:9', undefined, title)).toBe('at /home/me/app/src/a.ts:3:9')
  })

  it.each([
    // [text, limit, capped]: 60% of the limit for the head, 40% for the tail, counted as escaped for HTML.
    ['h'.repeat(5) + 't'.repeat(5), 10, 'hhhhhttttt'],
    ['h'.repeat(15) + 't'.repeat(15), 10, 'hhhhhh\n… [20 characters cut] …\ntttt'],
    // `<` is `&lt;` on the page, four characters each: the head's 6 holds one, the tail's 4 one.
    ['<'.repeat(10), 10, '<\n… [8 characters cut] …\n<'],
  ])('caps %j at %i escaped characters, head and tail', (text, limit, capped) => {
    expect(capText(text, limit)).toBe(capped)
    expect(TEXT_CHARS).toEqual({ error: 2000, stack: 3000, stdout: 1500, stderr: 1500 })
  })
})
