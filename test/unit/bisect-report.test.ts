import { describe, expect, it } from 'vitest'
import { renderBisectHtml } from '../../src/artifacts/bisect-html.js'
import { headline, renderBisectMarkdown } from '../../src/artifacts/bisect-report.js'
import { type BisectFile, BisectFileSchema } from '../../src/artifacts/bisect-schema.js'

const sha = (c: string): string => c.repeat(40)

/** A bisection of three commits after the good one, by hand: 0/10 at b, 4/10 at c. */
const FILE: BisectFile = BisectFileSchema.parse({
  schema_version: 1,
  subject: { kind: 'cmd', command: 'node race.js', setup: null },
  good: { sha: sha('a'), subject: 'good' },
  bad: { sha: sha('d'), subject: 'bad | piped' },
  history: 'first-parent',
  optimize: 'executions',
  assumptions: ['One commit changed the failure rate.'],
  confidence: 0.95,
  status: 'found',
  culprit: { sha: sha('c'), subject: 'make the cache lazy', position: 2, probability: 0.97 },
  alternatives: [{ sha: sha('d'), subject: 'bad | piped', position: 3, probability: 0.02 }],
  rates: {
    before: { trials: 10, failures: 0, rate: 0, ci_low: 0, ci_high: 0.2775, commits: 2 },
    after: { trials: 10, failures: 4, rate: 0.4, ci_low: 0.1682, ci_high: 0.6873, commits: 2 },
  },
  executions: 20,
  process_starts: 20,
  max_executions: 2000,
  prior: null,
  costs: { start_ms: 125, repetition_ms: null, setup_ms: null },
  model: 'A change point.',
  commits: [
    { sha: sha('a'), subject: 'good', position: 0, trials: 0, failures: 0, probability: 0 },
    { sha: sha('b'), subject: 'b', position: 1, trials: 10, failures: 0, probability: 0.01 },
    { sha: sha('c'), subject: 'make the cache lazy', position: 2, trials: 10, failures: 4, probability: 0.97 },
    { sha: sha('d'), subject: 'bad | piped', position: 3, trials: 0, failures: 0, probability: 0.02 },
  ],
  visits: [
    { visit: 1, sha: sha('c'), position: 2, executions: 10, failures: 4, process_starts: 10, duration_ms: 125, setup_ms: null, error: null, top: [{ sha: sha('c'), probability: 0.6 }] },
    { visit: 2, sha: sha('b'), position: 1, executions: 10, failures: 0, process_starts: 10, duration_ms: 125, setup_ms: null, error: null, top: [{ sha: sha('c'), probability: 0.97 }] },
  ],
  started_at: '2026-05-23T10:00:00.000Z',
  duration_ms: 250,
})

describe('bisect.md', () => {
  it('names the culprit, the two rates, the cost and every visit', () => {
    const md = renderBisectMarkdown(FILE)
    expect(md.split('\n').filter((l) => l.startsWith('## '))).toEqual(['## Which commit', '## Before and after', '## What it cost', '## Visits', '## What was assumed'])
    expect(md).toContain('The culprit is `cccccccccccc` "make the cache lazy", with posterior probability 97.0% (≥ 95.0%).')
    expect(md).toContain('| from cccccccccccc on | 2 | 10 | 4 | 40.0% | [16.8%, 68.7%] |')
    // A subject's `|` cannot break the table.
    expect(md).toContain('| `dddddddddddd` | bad \\| piped | 2.0% |')
    expect(md).toContain('20 executions (each in-process repetition counts as one) in 20 process starts, of a budget of 2000.')
    expect(md).toContain('one execution 125 ms')
  })

  it('says when the budget ran out, with the best guess, and when the two rates overlap', () => {
    const unsure = { ...FILE, status: 'budget' as const, culprit: { ...FILE.culprit, probability: 0.6 }, rates: { ...FILE.rates, before: { ...FILE.rates.before, ci_high: 0.5 } } }
    expect(headline(unsure)).toContain('Not sure yet: the budget of 2000 executions ran out. Best guess `cccccccccccc` "make the cache lazy" at 60.0% (< 95.0%)')
    expect(renderBisectMarkdown(unsure)).toContain('The two intervals overlap')
  })
})

describe('bisect.html', () => {
  it('is one self-contained page with the posterior drawn, one bar per commit after the good one', () => {
    const html = renderBisectHtml(FILE)
    expect(html).toContain("default-src 'none'")
    expect(html).not.toMatch(/<script|https?:\/\//)
    expect(html.match(/<rect class="bar/g)).toHaveLength(3)
    expect(html.match(/<rect class="bar culprit"/g)).toHaveLength(1)
    // Marks for the two commits with executions: 4 of 10 failed at c, none at b.
    expect(html).toContain('cccccccccccc (2): 4 of 10 failed')
    expect(html).toContain('bbbbbbbbbbbb (1): 0 of 10 failed')
  })
})
