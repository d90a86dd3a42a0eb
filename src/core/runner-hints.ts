/**
 * Runner-neutral advice for tests measured from another runner's reports (`repeat`, `ingest`): a
 * command in that runner's own syntax when the producer is known, none when it is not, and what a
 * command line says its reports will hide. Pure, so the one hint module for every suggested command
 * can take these functions over as they are.
 */
import type { Dialect } from './junit-dialect.js'

/** A test as the report named it. */
export interface ReportedTestName {
  project: string
  file: string
  /** Suite names and the test's own, joined by ` > `. */
  name: string
}

/**
 * The command that runs this one test with its own runner, or undefined when the producer is not
 * known well enough to say (`generic`) or names no file to select by (jest-junit's and node:test's
 * defaults write none).
 */
export function rerunCommandFor(producer: Dialect, test: ReportedTestName): string | undefined {
  const parts = test.name.split(' > ')
  const title = parts.at(-1) ?? test.name
  switch (producer) {
    case 'vitest':
      return `npx vitest run ${word(test.file)} -t ${word(anchored(parts.join(' ')))}`
    case 'jest-junit':
      return looksLikeFile(test.file) ? `npx jest ${word(test.file)} -t ${word(anchored(parts.join(' ')))}` : undefined
    case 'playwright':
      return `npx playwright test ${word(test.file)} -g ${word(anchored(parts.join(' ')))}${test.project === '' ? '' : ` --project ${word(test.project)}`}`
    case 'mocha':
      return looksLikeFile(test.file) ? `npx mocha ${word(test.file)} --grep ${word(anchored(parts.join(' ')))}` : undefined
    case 'pytest':
      // classname is the dotted module path (and class); -k matches the function name.
      return `python3 -m pytest -k ${word(title.replace(/\[.*$/, ''))}`
    case 'surefire':
      return `mvn test -Dtest=${word(`${test.file}#${title}`)}`
    case 'libtest':
    case 'nextest':
      return `cargo test -- --exact ${word(title)}`
    case 'node-test':
      return `node --test --test-name-pattern=${word(anchored(title))}`
    case 'generic':
      return undefined
  }
}

/**
 * What the command line says its reports will not show: retries a producer keeps out of its JUnit
 * report, so a test that passed on a retry reads as passed. pytest-rerunfailures' `--reruns` never
 * writes the failed attempts; Playwright's `--retries` writes them only with
 * PLAYWRIGHT_JUNIT_INCLUDE_RETRIES (or `includeRetries`). Undefined when nothing is hidden that the
 * command line shows.
 */
export function hiddenRetriesNote(command: string, env: Readonly<Record<string, string | undefined>>): string | undefined {
  if (/--reruns[= ]+[1-9]/.test(command)) {
    return 'pytest-rerunfailures (--reruns) leaves the failed attempts out of the JUnit report: a test that passed on a rerun reads as passed, so failures are undercounted; measure without it (-p no:rerunfailures)'
  }
  const includes = /PLAYWRIGHT_JUNIT_INCLUDE_RETRIES=(1|true)/.test(command) || ['1', 'true'].includes(env.PLAYWRIGHT_JUNIT_INCLUDE_RETRIES ?? '')
  if (/playwright\S*\s+test\b/.test(command) && /--retries[= ]+[1-9]/.test(command) && !includes) {
    return "Playwright's junit reporter leaves retries out unless PLAYWRIGHT_JUNIT_INCLUDE_RETRIES=1 (or includeRetries): a test that passed on a retry reads as passed, so failures are undercounted"
  }
  return undefined
}

// --- internal ---

/** A name matched whole, as a regular expression (the runners' -t / -g / --grep take one). */
function anchored(text: string): string {
  return `^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`
}

function looksLikeFile(file: string): boolean {
  return /\.[cm]?[jt]sx?$/.test(file)
}

/** One shell word, quoted when it needs to be. */
function word(text: string): string {
  return /^[\w./:=#@%+-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`
}
