import { existsSync } from 'node:fs'
import { isAbsolute, relative, resolve } from 'node:path'
import type { ReportBundle } from '../artifacts/bundle.js'
import { renderAnnotations, type TestLocation } from '../artifacts/github-annotations.js'
import type { AttributionFile } from '../artifacts/attribution-schema.js'
import { type QuarantinedTest, renderEnforcementSummary, renderEverydaySummary, renderGithubSummary } from '../artifacts/github-summary.js'
import { digestExecutions } from '../artifacts/execution-digest.js'
import { JUNIT_FAILURES_SHOWN, renderJunit, renderProofJunit } from '../artifacts/junit.js'
import { appendStepSummary } from '../artifacts/step-summary.js'
import { findTestLine } from '../artifacts/test-location.js'
import type { TestRate } from '../artifacts/test-schemas.js'
import { writeTextAtomic } from '../artifacts/write.js'
import { formatAnnotation, inGithubActions } from '../core/workflow-command.js'
import type { EnforcedResult, QuarantinedTest as EnforcedQuarantine } from './enforcement.js'

export type { QuarantinedTest } from '../artifacts/github-summary.js'

export interface GithubOptions {
  env: Readonly<Record<string, string | undefined>>
  /** The folder a test's `file` is relative to: its project's root. */
  rootOf: (test: TestRate) => string
  /** Where Vitest said each test is (absolute file, line), by test id; the source is searched for the others. */
  locations?: ReadonlyMap<string, { file: string; line?: number | undefined }>
  quarantined?: readonly QuarantinedTest[]
}

export { inGithubActions } from '../core/workflow-command.js'

/**
 * Under GitHub Actions (docs/contracts.md §8): appends the run's summary to `$GITHUB_STEP_SUMMARY`
 * (when set) and returns the annotation lines for the caller to print, since only the caller knows
 * which stream is its log. Outside GitHub Actions it does nothing and returns none.
 */
export function publishToGithub(bundle: Partial<ReportBundle>, options: GithubOptions): string[] {
  const { env } = options
  if (!inGithubActions(env)) return []
  if (env.GITHUB_STEP_SUMMARY) appendStepSummary(env.GITHUB_STEP_SUMMARY, renderGithubSummary(bundle, options.quarantined))
  const locate = (test: TestRate): TestLocation | undefined => {
    const given = options.locations?.get(test.id)
    return locateInWorkspace(env, given?.file ?? resolve(options.rootOf(test), test.file), test.name, given?.line)
  }
  return renderAnnotations(bundle, locate).map(formatAnnotation)
}

/** A test of an everyday run, where its runner put it. */
export interface EverydayTest {
  id: string
  project: string
  file: string
  name: string
}

/**
 * Under GitHub Actions, a red everyday run (docs/attribution.md): its step summary says whose failure
 * each failed test is, and each gets an annotation at its line — a warning for a known flake, an
 * error otherwise. Returns the annotation lines; outside GitHub Actions it does nothing.
 */
export function publishEverydayToGithub(command: string, tests: readonly EverydayTest[], attribution: AttributionFile, options: Omit<GithubOptions, 'rootOf'> & { rootOf: (test: { project: string }) => string }): string[] {
  const { env } = options
  if (!inGithubActions(env)) return []
  if (env.GITHUB_STEP_SUMMARY) appendStepSummary(env.GITHUB_STEP_SUMMARY, renderEverydaySummary(command, tests.length, attribution))
  const byId = new Map(tests.map((t) => [t.id, t]))
  return Object.entries(attribution.tests).map(([id, whose]) => {
    const test = byId.get(id)
    const given = options.locations?.get(id)
    const where = test ? locateInWorkspace(env, given?.file ?? resolve(options.rootOf(test), test.file), test.name, given?.line) : undefined
    return formatAnnotation({ level: whose.call === 'known-flake' ? 'warning' : 'error', title: `flakeproof: ${whose.call} ${test?.name ?? id}`, message: `${id}: ${whose.text}`, ...where })
  })
}

/** What an enforced run found, for its step summary and annotations. */
export interface EnforcementReport {
  /** The committed policy, as shown to the reader (relative to the project). */
  policyPath: string
  /** The project root the policy's `file`s are relative to. */
  root: string
  results: readonly EnforcedResult[]
  quarantined: readonly EnforcedQuarantine[]
  proposed: readonly string[]
  written: boolean
}

/**
 * Under GitHub Actions, an enforced run (docs/contracts.md §9): its quarantined tests, the listed tests
 * that failed beyond their budget and the proposals go to `$GITHUB_STEP_SUMMARY`, and a quarantined
 * test that failed gets a warning annotation, since it cannot turn the run red and must not go
 * unseen. Returns the annotation lines; outside GitHub Actions it does nothing.
 */
export function publishEnforcementToGithub(report: EnforcementReport, env: Readonly<Record<string, string | undefined>>): string[] {
  if (!inGithubActions(env)) return []
  const overBudget = report.results.filter((r) => r.outcome === 'failed-beyond-budget').map((r) => r.id)
  const quarantined = report.quarantined.map((q) => ({ id: q.id, since: q.quarantine.since, reason: q.quarantine.reason, failures: q.failures, trials: q.trials, outcome: q.outcome }))
  const summary = renderEnforcementSummary(report.policyPath, quarantined, overBudget, report.proposed, report.written)
  if (env.GITHUB_STEP_SUMMARY && summary !== '') appendStepSummary(env.GITHUB_STEP_SUMMARY, summary)
  return report.quarantined
    .filter((q) => q.outcome === 'failed')
    .map((q) => {
      const where = locateInWorkspace(env, resolve(report.root, q.file), q.name)
      const first = q.errors[0] === undefined ? '' : ` Error: ${q.errors[0].split('\n')[0]?.slice(0, 300)}`
      return formatAnnotation({
        level: 'warning',
        title: `flakeproof: quarantined test failed ${q.name}`,
        message: `${q.id} failed; it is quarantined (${q.quarantine.reason}), so the run stays green.${first} It leaves quarantine after a proof of ${q.greenRunsRequired} green runs.`,
        ...where,
      })
    })
}

/**
 * Where an annotation points: the file relative to the checkout (where the runner starts steps unless
 * told otherwise), and the line Vitest gave or, failing that, the one the source declares the test
 * on. Undefined for a file outside the checkout (GitHub would drop the annotation's place), and for
 * one that is not there: a JUnit report's classname (`tests.test_a.TestBeta`, jest-junit's `Alpha
 * same`) stands where a file would but names none, and would attach the annotation to nothing.
 */
function locateInWorkspace(env: Readonly<Record<string, string | undefined>>, file: string, name: string, line?: number): TestLocation | undefined {
  const inside = relative(env.GITHUB_WORKSPACE || process.cwd(), file)
  if (inside.startsWith('..') || isAbsolute(inside) || !existsSync(file)) return undefined
  const found = line ?? findTestLine(file, name.split(' > ').at(-1) ?? name)
  return { file: inside.split('\\').join('/'), ...(found === undefined ? {} : { line: found }) }
}

/**
 * `--flaky-junit`: the measurement in `bundle` as JUnit XML at `path`, each test's failing repetitions
 * read (bounded) from the facts file the measurement streamed. Written atomically.
 */
export function writeJunit(path: string, bundle: Pick<ReportBundle, 'rate'>, factsPath: string): void {
  const commandSubject = bundle.rate.tests === undefined ? bundle.rate.command : null
  const digests = digestExecutions(factsPath, commandSubject, new Set(['fast', 'single']), JUNIT_FAILURES_SHOWN)
  writeTextAtomic(path, renderJunit(bundle, digests))
}

/** `--flaky-junit` in a proof run: the proof's tests, named from the measurement, failing runs from proof_facts.jsonl. */
export function writeProofJunit(path: string, bundle: Pick<ReportBundle, 'proof'> & Partial<ReportBundle>, factsPath: string): void {
  const { proof, rate } = bundle
  if (!proof) return
  const names = new Map((rate?.tests ?? []).map((t) => [t.id, { name: t.name, classname: t.project ? `[${t.project}] ${t.file}` : t.file }]))
  const digests = digestExecutions(factsPath, null, new Set(['proof']), JUNIT_FAILURES_SHOWN)
  writeTextAtomic(path, renderProofJunit(proof, names, digests))
}
