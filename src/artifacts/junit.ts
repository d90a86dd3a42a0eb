import { stripAnsi } from '../core/ansi.js'
import type { ReportBundle } from './bundle.js'
import type { ExecutionDigest } from './execution-digest.js'
import type { ProofFile } from './schemas.js'

/** Failing repetitions listed per test; the rest are counted in its `system-out`. */
export const JUNIT_FAILURES_SHOWN = 20

/**
 * `--flaky-junit`: the measurement as JUnit XML in the Maven Surefire 3.0 report format
 * (surefire-test-report-3.0.xsd), which Jenkins, GitLab and most CI dashboards read (docs/contracts.md §8).
 * One `testcase` per test; a test that failed some repetitions and passed others carries each failing
 * repetition as a `flakyFailure` (the test passed, with flaky runs, as Surefire's reruns and nextest
 * write it); a test that failed every repetition carries one `failure`. Each test's counts, rate and
 * interval are in its `system-out`, and the run's in `properties`. Pure: `digests` come from the facts.
 */
export function renderJunit(bundle: Pick<ReportBundle, 'rate'>, digests: ReadonlyMap<string, ExecutionDigest>): string {
  const { rate } = bundle
  const subjects: Subject[] =
    rate.tests === undefined
      ? [{ id: rate.command, name: rate.command, classname: 'flakeproof.command', ...rate }]
      : rate.tests.map((t) => ({ ...t, classname: t.project ? `[${t.project}] ${t.file}` : t.file }))
  const failed = subjects.filter((s) => s.trials > 0 && s.failures === s.trials).length
  const properties = [
    ['flakeproof.command', rate.command],
    ['flakeproof.rounds', String(rate.trials)],
    ['flakeproof.failed_rounds', String(rate.failures)],
    ['flakeproof.confidence', String(rate.confidence)],
    ['flakeproof.complete', String(rate.complete)],
    ['flakeproof.started_at', rate.started_at],
  ]
  const counts = { tests: subjects.length, failures: failed, errors: 0, skipped: 0 }
  return renderSuite(counts, rate.duration_ms, properties, subjects.flatMap((s) => renderTestcase(s, digests.get(s.id), rate.confidence)))
}

/**
 * `--flaky-junit` in a proof run: one `testcase` per test the proof required. Every failing run of a
 * proof is a `failure` (a fix that fails once is not proven), one that ran fewer runs than required
 * fails too, a test filtered out of the run is `skipped`, and one whose file ran without it is an
 * `error`. `names` gives each id its test name and file (from the measurement the proof reads).
 */
export function renderProofJunit(proof: ProofFile, names: ReadonlyMap<string, { name: string; classname: string }>, digests: ReadonlyMap<string, ExecutionDigest>): string {
  const entries = Object.entries(proof.tests ?? {})
  const testcases = entries.flatMap(([id, p]) => {
    const { name, classname } = names.get(id) ?? { name: id, classname: 'flakeproof.proof' }
    const digest = digests.get(id)
    const time = digest && digest.executions > 0 ? seconds(digest.elapsedMs / digest.executions) : '0.000'
    const open = `  <testcase name="${attr(name)}" classname="${attr(classname)}" time="${time}">`
    const out = `    <system-out>${text(`flakeproof proof: ${p.status}, ${p.trials} of ${p.required} required runs, ${p.failures} failed: ${p.passed ? 'passed' : 'FAILED'}`)}</system-out>`
    if (p.status === 'not-selected') return [open, '    <skipped message="not selected in this run (file, -t or --project filter)"/>', out, '  </testcase>']
    if (p.status === 'missing') return [open, '    <error message="its file ran, but the test is gone" type="flakeproof.missing"/>', out, '  </testcase>']
    const failures = (digest?.failing ?? []).map((f) => `    <failure message="${attr(`run ${f.trial}: ${firstLine(f.error)}`)}" type="${attr(typeOf(f.error))}">${text(f.error)}</failure>`)
    const short = p.failures === 0 && !p.passed ? [`    <failure message="${attr(`ran ${p.trials} of ${p.required} required runs`)}" type="flakeproof.incomplete"/>`] : []
    return [open, ...failures, ...short, out, '  </testcase>']
  })
  const counts = {
    tests: entries.length,
    failures: entries.filter(([, p]) => p.status === 'ran' && !p.passed).length,
    errors: entries.filter(([, p]) => p.status === 'missing').length,
    skipped: entries.filter(([, p]) => p.status === 'not-selected').length,
  }
  const properties = [
    ['flakeproof.command', proof.command],
    ['flakeproof.required_from', proof.required_from],
    ['flakeproof.passed', String(proof.passed)],
    ['flakeproof.complete', String(proof.complete)],
  ]
  const elapsedMs = [...digests.values()].reduce((sum, d) => sum + d.elapsedMs, 0)
  return renderSuite(counts, elapsedMs, properties, testcases)
}

// --- internal ---

function renderSuite(counts: { tests: number; failures: number; errors: number; skipped: number }, durationMs: number, properties: string[][], testcases: string[]): string {
  const { tests, failures, errors, skipped } = counts
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuite name="flakeproof" tests="${tests}" failures="${failures}" errors="${errors}" skipped="${skipped}" time="${seconds(durationMs)}">`,
    '  <properties>',
    ...properties.map(([name, value]) => `    <property name="${attr(name as string)}" value="${attr(value as string)}"/>`),
    '  </properties>',
    ...testcases,
    '</testsuite>',
    '',
  ].join('\n')
}

interface Subject {
  id: string
  name: string
  classname: string
  trials: number
  failures: number
  rate: number
  ci_low: number
  ci_high: number
  verdict: string
}

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`
/** Surefire's time: seconds with at most three decimals. */
const seconds = (ms: number): string => (ms / 1000).toFixed(3)

function renderTestcase(s: Subject, digest: ExecutionDigest | undefined, confidence: number): string[] {
  const time = digest && digest.executions > 0 ? seconds(digest.elapsedMs / digest.executions) : '0.000'
  const failing = digest?.failing ?? []
  const counts =
    `flakeproof: ${s.failures} of ${s.trials} repetitions failed (rate ${pct(s.rate)}, ${+(confidence * 100).toFixed(4)}% interval ${pct(s.ci_low)} – ${pct(s.ci_high)}), verdict ${s.verdict}` +
    (s.failures > failing.length ? `; ${failing.length} failing repetitions listed` : '')
  const open = `  <testcase name="${attr(s.name)}" classname="${attr(s.classname)}" time="${time}">`
  const out = `    <system-out>${text(counts)}</system-out>`
  if (s.failures === 0) return [open, out, '  </testcase>']
  if (s.failures === s.trials) {
    const first = failing[0]
    const message = first ? firstLine(first.error) : `failed all ${s.trials} repetitions`
    return [open, `    <failure message="${attr(message)}" type="${attr(typeOf(first?.error))}">${text(first?.error ?? message)}</failure>`, out, '  </testcase>']
  }
  const flaky = failing.map(
    (f) =>
      `    <flakyFailure message="${attr(`repetition ${f.trial}: ${firstLine(f.error)}`)}" type="${attr(typeOf(f.error))}"><stackTrace>${text(f.error)}</stackTrace></flakyFailure>`,
  )
  return [open, ...flaky, out, '  </testcase>']
}

const firstLine = (error: string): string => stripAnsi(error).split('\n')[0]?.slice(0, 500) ?? ''

/** The error's class when its text starts with one (`AssertionError: …`), as JUnit's `type` means it. */
function typeOf(error: string | undefined): string {
  return /^\s*([A-Za-z_$][\w$.]*(?:Error|Exception))\b/.exec(stripAnsi(error ?? ''))?.[1] ?? 'Error'
}

/** Text XML 1.0 may hold: no escape codes, no control characters but tab, newline and carriage return. */
function clean(value: string): string {
  return stripAnsi(value).replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '').replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '')
}

function text(value: string): string {
  return clean(value).replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;')
}

/** Newlines and tabs as character references, so a parser does not normalise them to spaces. */
function attr(value: string): string {
  return text(value).replaceAll('"', '&quot;').replaceAll('\n', '&#10;').replaceAll('\r', '&#13;').replaceAll('\t', '&#9;')
}
