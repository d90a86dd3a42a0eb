import { relative } from 'node:path'
import type { Suite, TestCase, TestError, TestResult } from '@playwright/test/reporter'
import {
  assignTestIds,
  cap,
  formatTestId,
  messageOf,
  type Repetition,
  type RepetitionMode,
  type ReportedTest,
  type RunError,
  signatureOfError,
  signatureOfText,
  stripAnsi,
  type TestIdentity,
} from '../../src/session/adapter.js'

/** One test of the run: every copy `--repeat-each` made of it shares its id. */
export interface PlaywrightTest {
  id: string
  identity: TestIdentity
  /** Declaration order in the run, from 1. */
  order: number
  /** Copies of it in this run (`--repeat-each`), each with its attempts as they end. */
  copies: TestCase[]
  /** Copies that will run no further attempt. */
  finished: Set<TestCase>
  /** Attempts per copy, by attempt (`retry`) order. */
  attempts: Map<TestCase, TestResult[]>
}

/**
 * The tests of a Playwright run by id (src/core/test-id.ts): `[project] file > suites > name`, the
 * file relative to the project root (the config's folder), the suites and name as Playwright's title
 * path has them (anonymous describes have no title, and add none). Ids are assigned per file in
 * declaration order, so each copy of a file gets the same ones.
 */
export function testsOfRun(root: string, suite: Suite): Map<string, PlaywrightTest> {
  const tests = new Map<string, PlaywrightTest>()
  for (const project of suite.suites) {
    const name = project.project()?.name ?? project.title
    for (const file of project.suites) {
      const cases = file.allTests()
      const identities = cases.map((test) => ({ project: name, file: relativeFile(root, test.location.file), path: test.titlePath().slice(3) }))
      assignTestIds(identities).forEach((id, i) => {
        const test = cases[i] as TestCase
        const known: PlaywrightTest = tests.get(id) ?? { id, identity: identities[i] as TestIdentity, order: tests.size + 1, copies: [], finished: new Set(), attempts: new Map() }
        known.copies.push(test)
        tests.set(id, known)
      })
    }
  }
  return tests
}

/** The file's id prefix (`[project] file`), as `collected.modules` names a file that ran. */
export function moduleOf(test: PlaywrightTest): string {
  return formatTestId({ ...test.identity, path: [] })
}

/**
 * A regular expression (for Playwright's `--grep /…/` form, in which case counts) matching this test's title and no other's: the
 * project, file (relative to the project's testDir), suites and name joined by spaces, as Playwright matches it, with any `@tags` where Playwright puts
 * them (after a suite's title, and at the end).
 */
export function grepOf(test: Pick<TestCase, 'titlePath'>): string {
  // Playwright matches the title path from the project on (the root suite's empty title is not in it).
  const parts = test.titlePath().slice(1).map((part) => part.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'))
  return `^${parts.join('(?: @\\S+)* ')}(?: @\\S+)*$`
}

/**
 * The test's evidence (of these copies): the first attempt of each copy is one repetition. A retry is not: it runs
 * only after a failure, and counting it would make every rate higher than the test's own.
 */
export function reportedOf(test: PlaywrightTest, mode: RepetitionMode, root: string, copies: readonly TestCase[] = test.copies): ReportedTest {
  const repetitions: Repetition[] = []
  let worker = 'main'
  for (const copy of copies) {
    const first = test.attempts.get(copy)?.[0]
    if (!first || first.status === 'skipped' || first.status === 'interrupted') continue
    if (repetitions.length === 0) worker = String(first.parallelIndex)
    repetitions.push(repetitionOf(copy, first, mode, root))
  }
  const { identity } = test
  return {
    project: identity.project,
    file: identity.file,
    name: identity.path.join(' > '),
    evidence: { id: test.id, path: identity.path, order: test.order, previousTest: null, worker, seed: null, repetitions },
  }
}

/** An error outside any test (config, global setup, a worker's teardown), against its file when Playwright names one. */
export function runErrorOf(error: TestError, root: string): RunError {
  return { project: null, file: error.location ? relativeFile(root, error.location.file) : null, error: cap(errorText(error, root)) }
}

/** The test passed: Playwright's status is the expected one (a `test.fail()` test that failed passed). */
export function passed(test: TestCase, result: TestResult): boolean {
  return result.status === test.expectedStatus
}

/** First line of each distinct error of a test's failed attempts, in order (what enforcement shows). */
export function firstLines(results: readonly TestResult[]): string[] {
  return [...new Set(results.flatMap((r) => r.errors.map((e) => messageOf({ message: e.message ?? e.value }).split('\n')[0] as string)))]
}

/**
 * The failure signature of an attempt (src/core/signature.ts): from its first error's message and
 * whole stack, or, for a failure without an error (a test that passed though expected to fail, a
 * timeout Playwright reports bare), from the text flakeproof says about it.
 */
export function signatureOfAttempt(test: TestCase, result: TestResult, root: string): string {
  const error = result.errors[0]
  if (error) return signatureOfError({ message: error.message ?? error.value, stack: error.stack }, root)
  return signatureOfText(`expected to ${test.expectedStatus === 'failed' ? 'fail' : test.expectedStatus}, but ${result.status}`, root)
}

// --- internal ---

function repetitionOf(test: TestCase, result: TestResult, mode: RepetitionMode, root: string): Repetition {
  const ok = passed(test, result)
  const error = result.errors[0]
  const message = error ? errorText(error, root) : ok ? undefined : `expected to ${test.expectedStatus === 'failed' ? 'fail' : test.expectedStatus}, but ${result.status}`
  const stdout = outputOf(result.stdout)
  const stderr = outputOf(result.stderr)
  const stack = error?.stack === undefined ? undefined : stripAnsi(error.stack)
  // Playwright's own files of this attempt (trace.zip, the failure's screenshot), for report.html to link.
  const attachments = result.attachments.flatMap(({ name, path }) => (path === undefined ? [] : [{ name, path }]))
  return {
    ok,
    elapsedMs: result.duration,
    ...(message === undefined ? {} : { error: cap(message) }),
    ...(stack === undefined ? {} : { stack: cap(stack) }),
    ...(ok ? {} : { signature: signatureOfAttempt(test, result, root) }),
    ...(attachments.length === 0 ? {} : { attachments }),
    ...(stdout || stderr ? { stdout, stderr } : {}),
    mode,
    gapMs: 0,
  }
}

/** Playwright's message without colours, and where it was thrown (relative to the root). */
function errorText(error: TestError, root: string): string {
  const message = messageOf({ message: error.message ?? error.value })
  const at = error.location ? `\n    at ${relativeFile(root, error.location.file)}:${error.location.line}:${error.location.column}` : ''
  return `${message}${at}`
}

function outputOf(chunks: readonly (string | Buffer)[]): string {
  return cap(chunks.map((chunk) => chunk.toString()).join(''))
}

function relativeFile(root: string, file: string): string {
  return relative(root, file).split('\\').join('/')
}
