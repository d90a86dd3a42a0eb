import { describe, expect, it } from 'vitest'
import type { ExecutionDigest } from '../../src/artifacts/execution-digest.js'
import { renderJunit, renderProofJunit } from '../../src/artifacts/junit.js'
import { surefireViolations } from '../junit-schema.js'
import { proofFile, rateFile, testRate } from '../rate-file.js'

// Wilson 95% intervals (z = 1.96), by hand from (k + z²/2 ± z·sqrt(k(n−k)/n + z²/4)) / (n + z²):
// 5/20 → [0.1119, 0.4687]; 20/20 → [0.8389, 1]; 0/20 → [0, 0.1611].
const tests = [
  testRate('flaky <one> & "quoted"', 5, 0.1119, 0.4687, 'flaky'),
  testRate('broken', 20, 0.8389, 1, 'broken'),
  testRate('stable', 0, 0, 0.1611, 'stable'),
]
const rate = rateFile({ trials: 20, failures: 20, rate: 1, ci_low: 0.8389, ci_high: 1 }, { tests, duration_ms: 1234 })
const digest = (failing: ExecutionDigest['failing'], elapsedMs = 20): ExecutionDigest => ({ failing, elapsedMs, executions: 20 })
const digests = new Map([
  [tests[0]?.id as string, digest([4, 8, 12, 16, 20].map((trial) => ({ trial, error: `\u001b[31mAssertionError\u001b[39m: STALE on call ${trial}\n    at a.test.ts:3 <x> & \u0007bell` })))],
  [tests[1]?.id as string, digest([{ trial: 1, error: 'TypeError: x is not a function' }])],
])

describe('renderJunit (Surefire 3.0 format)', () => {
  const xml = renderJunit({ rate }, digests)

  it('is valid against surefire-test-report-3.0.xsd', () => {
    expect(surefireViolations(xml)).toEqual([])
  })

  it('gives a flaky test one flakyFailure per failing repetition, and the test passes', () => {
    const flaky = xml.split('<testcase ')[1] as string
    expect(flaky.match(/<flakyFailure /g)).toHaveLength(5)
    expect(flaky).toContain('message="repetition 4: AssertionError: STALE on call 4" type="AssertionError"')
    expect(flaky).not.toContain('<failure')
  })

  it('gives a broken test one failure, and counts it in the suite', () => {
    expect(xml).toContain('<testsuite name="flakeproof" tests="3" failures="1" errors="0" skipped="0" time="1.234">')
    expect(xml).toContain('<failure message="TypeError: x is not a function" type="TypeError">TypeError: x is not a function</failure>')
  })

  it('writes each test its counts, rate and interval', () => {
    expect(xml).toContain('<system-out>flakeproof: 5 of 20 repetitions failed (rate 25.0%, 95% interval 11.2% – 46.9%), verdict flaky</system-out>')
    expect(xml).toContain('<system-out>flakeproof: 0 of 20 repetitions failed (rate 0.0%, 95% interval 0.0% – 16.1%), verdict stable</system-out>')
  })

  it('escapes markup and drops what XML 1.0 cannot hold (escape codes, BEL)', () => {
    expect(xml).toContain('name="flaky &lt;one&gt; &amp; &quot;quoted&quot;"')
    expect(xml).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/)
  })

  it('says how many failing repetitions it lists when it lists fewer than failed', () => {
    const capped = renderJunit({ rate }, new Map([[tests[0]?.id as string, digest([{ trial: 4, error: 'E' }])]]))
    expect(capped).toContain('verdict flaky; 1 failing repetitions listed</system-out>')
    expect(surefireViolations(capped)).toEqual([])
  })

  it('renders a command measurement as one testcase', () => {
    const command = rateFile({ trials: 10, failures: 3, rate: 0.3, ci_low: 0.1078, ci_high: 0.6032 }, { command: 'node job.js' })
    const one = renderJunit({ rate: command }, new Map([['node job.js', digest([{ trial: 2, error: 'exit 1' }])]]))
    expect(surefireViolations(one)).toEqual([])
    expect(one).toContain('<testcase name="node job.js" classname="flakeproof.command"')
    expect(one.match(/<flakyFailure /g)).toHaveLength(1)
  })
})

describe('the Surefire schema check itself', () => {
  it.each([
    ['<testsuites/>', 'the root is <testsuites>'],
    ['<testsuite name="s" tests="1" errors="0" skipped="0"/>', 'required attribute failures is missing'],
    ['<testsuite name="s" tests="1" errors="0" skipped="0" failures="0"><testcase name="t" time="1.5s"/></testsuite>', 'is not a SUREFIRE_TIME'],
    ['<testsuite name="s" tests="1" errors="0" skipped="0" failures="0"><testcase name="t" time="1"><flakyFailure type="E"/></testcase></testsuite>', '<stackTrace> occurs 0 times'],
    ['<testsuite name="s" tests="1" errors="0" skipped="0" failures="0"><testcase name="t" time="1"><system-out/><failure type="E"/></testcase></testsuite>', '<failure> is not allowed there'],
  ])('rejects %s', (xml, problem) => {
    expect(surefireViolations(xml).join('\n')).toContain(problem)
  })

  it('rejects XML that is not well-formed', () => {
    expect(() => surefireViolations('<testsuite><testcase></testsuite>')).toThrow()
  })
})

describe('renderProofJunit', () => {
  // Counts of the whole proof: 2 of 11 failed; Wilson 95% [5.1%, 47.7%].
  const proof = proofFile({ required: 11, trials: 11, failures: 2, ci_low: 0.051, ci_high: 0.477, passed: false, failure_trials: [4, 8] }, {
    'a > fixed': { required: 11, trials: 11, failures: 0, passed: true, failure_trials: [], status: 'ran' },
    'a > still flaky': { required: 14, trials: 14, failures: 2, passed: false, failure_trials: [4, 8], status: 'ran' },
    'a > cut short': { required: 14, trials: 9, failures: 0, passed: false, failure_trials: [], status: 'ran' },
    'a > filtered': { required: 11, trials: 0, failures: 0, passed: false, failure_trials: [], status: 'not-selected' },
    'a > gone': { required: 11, trials: 0, failures: 0, passed: false, failure_trials: [], status: 'missing' },
  })
  const names = new Map([['a > still flaky', { name: 'still flaky', classname: 'tests/a.test.ts' }]])
  const xml = renderProofJunit(proof, names, new Map([['a > still flaky', digest([{ trial: 4, error: 'E4' }, { trial: 8, error: 'E8' }], 28)]]))

  it('is valid against surefire-test-report-3.0.xsd', () => {
    expect(surefireViolations(xml)).toEqual([])
  })

  it('fails a test for each failing run and for runs it did not finish; skips a filtered one; errors a gone one', () => {
    expect(xml).toContain('<testsuite name="flakeproof" tests="5" failures="2" errors="1" skipped="1" time="0.028">')
    expect(xml).toContain('<testcase name="still flaky" classname="tests/a.test.ts" time="0.001">')
    expect(xml.match(/<failure message="run \d: E\d"/g)).toEqual(['<failure message="run 4: E4"', '<failure message="run 8: E8"'])
    expect(xml).toContain('<failure message="ran 9 of 14 required runs" type="flakeproof.incomplete"/>')
    expect(xml).toContain('<skipped message="not selected in this run (file, -t or --project filter)"/>')
    expect(xml).toContain('<error message="its file ran, but the test is gone" type="flakeproof.missing"/>')
    expect(xml).toContain('<system-out>flakeproof proof: ran, 11 of 11 required runs, 0 failed: passed</system-out>')
  })
})
