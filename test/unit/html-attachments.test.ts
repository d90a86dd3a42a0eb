import { describe, expect, it } from 'vitest'
import { type ExecutionSummary, toExecutionLine, toFailingExecution } from '../../src/artifacts/html-executions.js'
import { renderFailing } from '../../src/artifacts/html-failing.js'
import { HTML_TEXT } from '../../src/artifacts/html-text.js'

/** A failing Playwright execution's fact line, as plugin/playwright writes it (docs/contracts.md: attachments). */
const fact = {
  trial: 2,
  test_id: '[desktop] tests/cart.spec.ts > cart > shows the total',
  project: 'desktop',
  file: 'tests/cart.spec.ts',
  name: 'cart > shows the total',
  outcome: 'failed',
  elapsed_ms: 812,
  error: 'Error: expect(locator).toHaveText(expected) failed',
  stdout: '',
  stderr: '',
  repeat: 1,
  order: 1,
  previous_test: null,
  worker: '0',
  seed: null,
  gap_ms: 0,
  mode: 'fast',
  attachments: [
    { name: 'screenshot', path: '/work/app/test-results/cart-desktop-repeat1/test-failed-1.png' },
    { name: 'trace', path: '/work/app/test-results/cart-desktop-repeat1/trace.zip' },
    { name: 'broken', path: 7 },
  ],
}

const summaryOf = (data: unknown): ExecutionSummary => {
  const line = toExecutionLine(data, null)
  if (line === undefined || line === 'skipped') throw new Error('not an execution line')
  return { segments: [], durations: { passed: emptySample, failed: emptySample }, firstError: null, failing: [toFailingExecution(line)], failures: 1 }
}
const emptySample = { count: 0, minMs: 0, maxMs: 0, meanMs: 0, stride: 1, points: [] }

describe("report.html links a failing execution's attachments (Playwright's trace and screenshot)", () => {
  it.each([
    // report.html in /work/app/.flakeproof: ../test-results/… from there; a malformed entry is left out.
    ['beside the checkout', { reportDir: '/work/app/.flakeproof', cwd: '/work/app' }, ['href="../test-results/cart-desktop-repeat1/test-failed-1.png"', 'href="../test-results/cart-desktop-repeat1/trace.zip"']],
    // A page rendered from memory has no folder to link from: the paths are shown.
    ['without a folder', undefined, ['<code>/work/app/test-results/cart-desktop-repeat1/trace.zip</code>']],
  ])('%s', (_name, source, expected) => {
    const html = renderFailing('s1', summaryOf(fact), 'measured', { facts: 'facts.jsonl', present: true }, source, HTML_TEXT.en)
    expect(html).toContain('<dt>attachments</dt>')
    for (const part of expected) expect(html).toContain(part)
    expect(html).not.toContain('broken')
  })

  it('shows nothing for an execution without attachments', () => {
    const { attachments: _attachments, ...without } = fact
    const html = renderFailing('s1', summaryOf(without), 'measured', { facts: 'facts.jsonl', present: true }, undefined, HTML_TEXT.en)
    expect(html).not.toContain('attachments')
  })
})
