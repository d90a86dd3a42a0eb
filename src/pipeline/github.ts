import { isAbsolute, relative, resolve } from 'node:path'
import type { ReportBundle } from '../artifacts/bundle.js'
import { renderAnnotations, type TestLocation } from '../artifacts/github-annotations.js'
import { type QuarantinedTest, renderGithubSummary } from '../artifacts/github-summary.js'
import { digestExecutions } from '../artifacts/execution-digest.js'
import { JUNIT_FAILURES_SHOWN, renderJunit, renderProofJunit } from '../artifacts/junit.js'
import { appendStepSummary } from '../artifacts/step-summary.js'
import { findTestLine } from '../artifacts/test-location.js'
import type { TestRate } from '../artifacts/test-schemas.js'
import { writeTextAtomic } from '../artifacts/write.js'
import { formatAnnotation } from '../core/workflow-command.js'

export type { QuarantinedTest } from '../artifacts/github-summary.js'

export interface GithubOptions {
  env: Readonly<Record<string, string | undefined>>
  /** The folder a test's `file` is relative to: its project's root. */
  rootOf: (test: TestRate) => string
  /** Where Vitest said each test is (absolute file, line), by test id; the source is searched for the others. */
  locations?: ReadonlyMap<string, { file: string; line?: number | undefined }>
  quarantined?: readonly QuarantinedTest[]
}

/** Whether this process runs as a GitHub Actions step (the runner sets GITHUB_ACTIONS=true). */
export function inGithubActions(env: Readonly<Record<string, string | undefined>>): boolean {
  return env.GITHUB_ACTIONS === 'true'
}

/**
 * Under GitHub Actions (docs/contracts.md §8): appends the run's summary to `$GITHUB_STEP_SUMMARY`
 * (when set) and returns the annotation lines for the caller to print, since only the caller knows
 * which stream is its log. Outside GitHub Actions it does nothing and returns none.
 */
export function publishToGithub(bundle: Partial<ReportBundle>, options: GithubOptions): string[] {
  const { env } = options
  if (!inGithubActions(env)) return []
  if (env.GITHUB_STEP_SUMMARY) appendStepSummary(env.GITHUB_STEP_SUMMARY, renderGithubSummary(bundle, options.quarantined))
  // Annotation paths are relative to the checkout, which is where the runner starts steps unless told otherwise.
  const workspace = env.GITHUB_WORKSPACE || process.cwd()
  const locate = (test: TestRate): TestLocation | undefined => {
    const given = options.locations?.get(test.id)
    const file = given?.file ?? resolve(options.rootOf(test), test.file)
    const inside = relative(workspace, file)
    if (inside.startsWith('..') || isAbsolute(inside)) return undefined
    const line = given?.line ?? findTestLine(file, test.name.split(' > ').at(-1) ?? test.name)
    return { file: inside.split('\\').join('/'), ...(line === undefined ? {} : { line }) }
  }
  return renderAnnotations(bundle, locate).map(formatAnnotation)
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
