// @ts-expect-error jsdom ships no types and this project installs none: only its HTML parser is used here.
import { JSDOM } from 'jsdom'
import { describe, expect, it } from 'vitest'
import type { ReportBundle } from '../../src/artifacts/bundle.js'
import { renderHtmlReport } from '../../src/artifacts/html.js'
import { ExecutionCollector, type ExecutionSummaries } from '../../src/artifacts/html-executions.js'
import { detailedSubjects } from '../../src/artifacts/html-subjects.js'
import { renderReport } from '../../src/artifacts/markdown.js'
import { englishLeft, withoutMarkdownCode } from '../english.js'
import { rateFile } from '../rate-file.js'
import { fullExecutions, fullTestBundle, UNKNOWN_VERDICT } from '../report-bundle.js'

/**
 * `--lang ko` says everything in Korean, in report.html and in flaky_report.md: what is left in
 * Latin letters is the user's own text (ids, commands, errors), code, numbers, file names and the
 * names Korean writes in Latin letters too (test/english.ts). Each report is made from a bundle
 * with every part it can show, so no sentence escapes the check by not being rendered.
 */

const COMMAND = 'node job.js --state s'

/** Command mode with every file: 8 of 40 trials failed, every fifth (Wilson 95% [0.1049, 0.3482]). */
function commandBundle(): ReportBundle {
  const fast = { trials: 40, failures: 8, rate: 0.2, ci_low: 0.1049, ci_high: 0.3482, gap_ms: 0 }
  const slow = { trials: 3, failures: 0, rate: 0, ci_low: 0, ci_high: 0.5615, gap_ms: 1600 }
  return {
    rate: rateFile(
      { trials: 40, failures: 8, rate: 0.2, ci_low: 0.1049, ci_high: 0.3482 },
      { command: COMMAND, jobs: 1, independence: { runs: 17, expected_runs: 13.8, p_value: 0.0196, method: 'exact', pattern: 'regular', switch_at: null, switched_to: null, period: 5 } },
    ),
    onlyWhenFail: {
      schema_version: 1,
      trials: 40,
      failures: 8,
      exit_codes_on_failure: [3, null],
      exit_codes_on_success: [0],
      token: 'STALE',
      token_candidates: ['STALE'],
      failure_trials: [5, 10, 15, 20, 25, 30, 35, 40],
      predicates: [{ predicate: 'exit_code = 3', true_in_failures: 8, true_in_successes: 0, observed_in: 40, failure: 1, context: 0.2, increase: 0.8, importance: 0.889 }],
    },
    observer: { schema_version: 1, command: COMMAND, fast, slow, confidence: 0.95, p_value: 1, changed: false, note: 'The slow run saw no failure, but 3 slow trials are too few (…).' },
    runsNeeded: {
      schema_version: 1,
      observed_rate: 0.2,
      trials: 40,
      failures: 8,
      basis: 'observed',
      planned_rate: 0.2,
      // (1 − 0.2)^n ≤ 1 − c: n = 11 at 0.9, 14 at 0.95, 21 at 0.99 (docs/contracts.md §2).
      table: [
        { confidence: 0.9, runs: 11 },
        { confidence: 0.95, runs: 14 },
        { confidence: 0.99, runs: 21 },
      ],
      chosen: { confidence: 0.95, runs: 14 },
      note: 'Failures were spread too evenly (…): a clue (a counter, a cycle); the interval assumes independent trials.',
    },
    policy: { schema_version: 1, observed_rate: 0.2, trials: 40, failures: 8, basis: 'observed', confidence: 0.95, green_runs_required: 14, retry_budget: 2, quarantine_after: 1, notes: [] },
    proof: { schema_version: 1, command: `${COMMAND} --fixed`, required: 14, required_from: '--runs', trials: 14, failures: 0, rate: 0, ci_low: 0, ci_high: 0.2153, passed: true, failure_trials: [], complete: true },
  }
}

function commandExecutions(): ExecutionSummaries {
  const collector = new ExecutionCollector([COMMAND])
  for (let trial = 1; trial <= 40; trial++) {
    const failed = trial % 5 === 0
    const stderr = failed ? `STALE token on call ${trial}\n    at /proj/job.js:3:9` : ''
    collector.add({ subject: COMMAND, trial, failed, elapsedMs: 30, mode: 'fast', error: stderr || null, fact: { trial, exit_code: failed ? 3 : 0, stderr, stdout: '', worker: 1, signal: null, timed_out: false } })
  }
  return { ...collector.summarise(), source: { reportDir: '/proj/out', cwd: '/proj' } }
}

/** Every visible text and shown attribute of a page that is not code, as the reader meets it. */
function proseOf(html: string): string[] {
  const { document } = new JSDOM(html).window
  const texts: string[] = []
  const walker = document.createTreeWalker(document.documentElement, 4)
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.parentElement?.closest('code, pre, script, style')) texts.push(node.textContent ?? '')
  }
  for (const element of document.querySelectorAll('[title], [aria-label], [placeholder], [data-shown]')) {
    for (const name of ['title', 'aria-label', 'placeholder', 'data-shown']) {
      // data-shown is the script's template: its {shown} and {total} become numbers.
      const value = element.getAttribute(name)?.replace(/\{(shown|total)\}/g, '1')
      if (value !== undefined) texts.push(value)
    }
  }
  return texts.filter((text) => text.trim() !== '')
}

/** The user's own text in a bundle: ids, commands, errors, and what its facts printed. */
function userTextOf(bundle: ReportBundle, executions: ExecutionSummaries): string[] {
  const failing = [...executions.subjects.values(), ...(executions.proof?.values() ?? [])].flatMap((s) => s.failing)
  return [
    UNKNOWN_VERDICT,
    bundle.rate.command,
    bundle.proof?.command ?? '',
    bundle.observer?.command ?? '',
    ...(bundle.rate.tests ?? []).map((t) => t.id),
    ...(bundle.rate.run_errors ?? []).map((e) => e.error),
    ...Object.values(bundle.conditions?.tests ?? {}).flatMap((t) => (t.order ? [t.order.culprit] : [])),
    ...failing.flatMap((f) => [f.error ?? '', ...`${f.stderr}\n${f.stdout}`.split('\n')]),
  ]
}

describe('--lang ko', () => {
  const test = fullTestBundle()
  const testExecutions = fullExecutions(test, detailedSubjects(test).map((s) => s.id))
  const command = commandBundle()
  const cases = [
    ['test mode', test, testExecutions],
    ['command mode', command, commandExecutions()],
  ] as const

  it.each(cases)('report.html (%s) leaves no English text apart from ids, numbers and code', (_, bundle, executions) => {
    const html = renderHtmlReport(bundle, executions, 'ko')
    expect(html).toContain('<html lang="ko">')
    const user = userTextOf(bundle, executions)
    const left = proseOf(html).flatMap((text) => englishLeft(text, user).map((word) => `${word} in ${JSON.stringify(text.trim().slice(0, 120))}`))
    expect(left).toEqual([])
    // The English page of the same bundle does have English in it: the check finds words.
    expect(proseOf(renderHtmlReport(bundle, executions, 'en')).flatMap((text) => englishLeft(text, user)).length).toBeGreaterThan(100)
  })

  it.each(cases)('flaky_report.md (%s) leaves no English text apart from ids, numbers and code', (_, bundle, executions) => {
    const markdown = renderReport(bundle, 'ko')
    const user = userTextOf(bundle, executions)
    const left = withoutMarkdownCode(markdown)
      .split('\n')
      .flatMap((line) => englishLeft(line, user).map((word) => `${word} in ${JSON.stringify(line.slice(0, 120))}`))
    expect(left).toEqual([])
    expect(englishLeft(withoutMarkdownCode(renderReport(bundle, 'en')), user).length).toBeGreaterThan(20)
  })
})
