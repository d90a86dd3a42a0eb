import { join, relative } from 'node:path'
import pc from 'picocolors'
import { proofRunsText } from '../artifacts/counts-text.js'
import { freshRateText } from '../artifacts/fresh-rate-text.js'
import { INDEPENDENCE_TEXT } from '../artifacts/independence-text.js'
import type { ConditionsFile, RoundCondition } from '../artifacts/conditions-schema.js'
import type { ProofFile } from '../artifacts/schemas.js'
import type { RunError } from '../artifacts/test-schemas.js'
import { countDistinct } from '../core/distinct.js'
import type { Hints } from '../core/hints.js'
import { describeRate } from '../core/rate.js'
import { shellLines, wrap } from '../core/text-layout.js'
import type { Verdict } from '../core/verdict.js'
import type { ReportedTest } from '../pipeline/test-evidence.js'
import type { TestOutcome, TestRunResult } from '../pipeline/test-run.js'
import { renderTable, shownId } from './_table.js'
import { signatureLines } from './attribution-run.js'

export interface RunEndContext {
  /** Tests recovered from the journal: cut short by a crash or a stop. */
  unfinished: readonly ReportedTest[]
  runErrors: readonly RunError[]
  /** The runner ended the run before every test ran: a --bail, or the user stopped it. */
  endedEarly?: boolean | undefined
  /** `--flaky-budget`'s calibration run: its verdicts on three repetitions are not shown. */
  calibration: boolean
  /** Repetitions asked for (the calibration's count). */
  repeat: number
  /** Whole-run rounds asked for (`--flaky-rounds`; 1 without). */
  rounds?: number | undefined
  /** Of the intervals shown. */
  confidence: number
  /** Suggested commands, in the runner's syntax. */
  hints: Hints
  /** Columns of the terminal: every line fits, but a command (src/core/text-layout.ts `terminalWidth`). */
  width: number
  /** What the runner's own ✓ and counts meant in this measurement (RunnerInfo `ticks`), when it prints them. */
  ticks?: string | undefined
}

/**
 * The end of a run in the terminal, for every runner: where the files are, tests cut short, the
 * run's errors, then a proof's verdict per test, or the flaky and broken tests, what the conditions
 * found, for each non-idempotent test its cause and how to measure it afresh, and for each
 * undetermined one the switch seen, what fresh-state rounds found and the run that would decide it;
 * for a test that failed every repetition but not every plain run of its file, what those found.
 */
/** Tests of each verdict whose cause and next command the terminal explains (undetermined, non-idempotent): flaky_report.md explains every one. */
export const EXPLAINED = 5

export function renderRunEnd(result: TestRunResult, context: RunEndContext): string[] {
  const { unfinished, runErrors } = context
  const lines = ['']
  const title = pc.bold(pc.cyan(' flakeproof '))
  const where = shownFolder(result.dir)
  if (result.unchanged) return [...lines, title + pc.dim(`no test ran: the files in ${where} were left as they were`)]
  // `flakeproof vitest --flaky-budget` runs a calibration with `budget` still set: three repetitions
  // time the selection, and verdicts on so few are not shown (the measurement after it has its own).
  if (context.calibration) return [...lines, title + pc.dim(`calibration: ${result.tests.length} test(s), ${context.repeat} runs each`)]
  // First, before flakeproof's numbers that may contradict the runner's ticks and counts.
  if (context.ticks !== undefined && context.repeat > 1) lines.push(...wrap(context.ticks, context.width, 2, 2).map((line, i) => pc.dim(i === 0 ? `  ${line}` : line)))
  lines.push(title + pc.dim(`${result.tests.length} test(s), files in ${where}`))
  if (result.summary) lines.push(pc.dim(`  report: ${join(where, 'report.html')}`))
  for (const test of unfinished) {
    const last = test.evidence.repetitions.at(-1)
    lines.push(pc.red(`  ✗ ${test.evidence.id}: ${last?.ok === false && last.error?.startsWith('the worker') ? last.error : 'stopped before all its repetitions ran'}`))
  }
  // Each copy of a test may leave the same error behind (an unhandled rejection per repetition): one line each, counted.
  for (const { item: line, times } of countDistinct(runErrors.map(runErrorLine), (l) => l)) lines.push(pc.red(`  ✗ ${line}${times > 1 ? ` (${times} times)` : ''}`))
  if (context.endedEarly) lines.push(pc.red('  ✗ the run ended before every test ran (a --bail, or it was stopped): the tests it never reached are in none of these files'))
  if (result.proof) {
    const proven = Object.entries(result.proof.tests ?? {})
    for (const [id, p] of proven) {
      const status = p.status === 'ran' ? `${proofRunsText(p.trials, p.required)}, ${p.failures} failed` : p.status
      lines.push(`  ${p.passed ? pc.green('✓') : pc.red('✗')} ${id}  ${pc.dim(status)}`)
    }
    for (const missing of result.proof.unreproduced ?? []) lines.push(pc.red(`  ✗ not replayed: ${missing}`))
    const weaker = result.proof.weaker ?? []
    const strict = result.proof.strict === true
    for (const w of weaker) lines.push((strict ? pc.red : pc.yellow)(`  ${strict ? '✗' : '⚠'} weaker than the measurement: ${w.note}`))
    lines.push(proofVerdict(result.proof, proven.map(([, p]) => p)))
    return lines
  }
  const once = result.tests.filter((o) => o.tally.once).length
  if (once > 0) lines.push(pc.dim(`  ${once} typecheck test(s) ran once: typecheck is not repeated`))
  const concerning = result.tests.filter((o: TestOutcome) => o.verdict !== 'stable')
  if (concerning.length > 0) lines.push(...renderTable(concerning, { ...context, conditions: result.conditions }))
  else if (runErrors.length > 0 || unfinished.length > 0 || context.endedEarly) lines.push(pc.red('  no flaky or broken test among those that ran, but the run is incomplete (above)'))
  else lines.push(pc.green('  no flaky or broken test'))
  lines.push(...conditionLines(result.conditions))
  lines.push(...signatureLines(result.bundle))
  const said = (text: string, first: number, rest: number): string[] => wrap(text, context.width, rest, first).map((line, i) => pc.dim(i === 0 ? `${' '.repeat(first)}${line}` : line))
  // The tests to explain (undetermined, non-idempotent): the first few of each; flaky_report.md explains every one.
  const explained = new Map<Verdict, number>()
  let unexplained = 0
  for (const { tally, verdict } of concerning) {
    if (verdict !== 'undetermined' && verdict !== 'non-idempotent') continue
    const nth = (explained.get(verdict) ?? 0) + 1
    explained.set(verdict, nth)
    if (nth > EXPLAINED) {
      unexplained++
      continue
    }
    // What fresh-state rounds found, when they ran for this test (src/pipeline/fresh-evidence.ts).
    const evidence = tally.freshEvidence ? ` ${tally.freshEvidence.note}` : ''
    const subject = { project: tally.project, file: tally.file, name: tally.name }
    // The next step's command is set apart (MARK), to stand on lines of its own that still run when pasted.
    const step = (sentence: string): void => {
      const [text = '', command] = sentence.split(MARK)
      if (text !== '') lines.push(...said(text, 4, 6))
      if (command !== undefined) lines.push(...shellLines(command, context.width, 6).map((line) => pc.cyan(line)))
    }
    const marked = (command: string): string => `${MARK}${command}${MARK}`
    // Failed every repetition, and plain runs of its file said otherwise (src/pipeline/plain-evidence.ts):
    // its rate in ordinary runs is what to measure.
    if (tally.plainEvidence) {
      lines.push('', ...said(`${verdict}: ${shownId(tally.id)}: ${tally.plainEvidence.note}`, 2, 4))
      step(INDEPENDENCE_TEXT.en.plainRate(context.hints.plainRate(subject), marked))
      continue
    }
    if (verdict === 'undetermined') {
      lines.push('', ...said(`undetermined: ${shownId(tally.id)}: ${INDEPENDENCE_TEXT.en.undetermined(tally.independence, 'repetition')}${evidence}`, 2, 4))
      step(INDEPENDENCE_TEXT.en.decide(context.hints.decide({ test: subject, switchAt: tally.independence.switch_at, trials: tally.fast.trials }), marked))
      continue
    }
    lines.push('', ...said(`non-idempotent: ${shownId(tally.id)}: ${INDEPENDENCE_TEXT.en.cause(tally.independence, 'repetition')}${evidence}`, 2, 4))
    const fresh = tally.fresh
    if (fresh) lines.push(...said(freshRateText({ ...describeRate(fresh.failures, fresh.trials, context.confidence), failure_rounds: fresh.failureTrials }), 4, 4))
    // Its rate in ordinary runs of its file: the tests before it in the file run first, as usual, and it is counted alone.
    else step(INDEPENDENCE_TEXT.en.plainRate(context.hints.plainRate(subject), marked))
  }
  if (unexplained > 0) lines.push('', ...said(`… and ${unexplained} more explained in flaky_report.md, each with its command`, 2, 4))
  return lines
}

/** An output folder as the terminal names it: relative to where the command ran, absolute when outside it. */
export function shownFolder(dir: string): string {
  const shown = relative(process.cwd(), dir)
  return shown === '' ? '.' : shown.startsWith('..') ? dir : shown
}

/** A warning of flakeproof's own in the runner's log. */
export function warning(text: string): string {
  return pc.yellow(text)
}

/** ` (serial, seed 43)`: a round's condition and seed, when there is something to say. */
export function describeRound(condition: RoundCondition, seed: number | null): string {
  const parts = [...(condition === 'base' ? [] : [condition === 'load' ? 'under load' : condition]), ...(seed === null ? [] : [`seed ${seed}`])]
  return parts.length === 0 ? '' : ` (${parts.join(', ')})`
}

// --- internal ---

/**
 * A proof's last line: passed, passed but weaker (it releases no quarantine), or failed and why —
 * conditions not replayed, weaker and strict, or no test to prove.
 */
function proofVerdict(proof: ProofFile, proven: readonly { status: string; passed: boolean }[]): string {
  const weaker = (proof.weaker ?? []).length > 0
  if (proof.passed && !weaker) return pc.green('  proof passed')
  if (proof.passed) {
    return pc.yellow('  proof passed, but weaker than the measurement (above): it releases no quarantine; rerun it as suggested, or --flaky-proof-strict fails such a proof')
  }
  const unreplayed = proof.unreproduced?.length ? ': the flake was measured under conditions this proof did not replay (above); add those flags' : ''
  const why = proofFailure(proven, unreplayed, proof.complete)
  if (why !== '') return pc.red(`  proof FAILED${why}`)
  if (weaker && proof.strict === true && Object.values(proof.tests ?? {}).every((t) => t.passed)) {
    return pc.red("  proof FAILED: weaker than the measurement (above), and strict (--flaky-proof-strict, or the committed policy's proof_strict)")
  }
  return pc.red('  proof FAILED')
}

/** Sets a command apart inside a sentence, to be split out of it: no test name or command holds a NUL. */
const MARK = '\u0000'

/** Each test's findings from conditions.json: the tags first, then what was compared and found no difference. */
function conditionLines(conditions: ConditionsFile | undefined): string[] {
  if (!conditions) return []
  const lines: string[] = []
  for (const [id, { comparisons, order, tags }] of Object.entries(conditions.tests)) {
    lines.push(`  ${tags.length > 0 ? pc.yellow(tags.join(', ').toUpperCase()) : pc.dim('no condition found')}  ${id}`)
    const notes = [...comparisons.map((c) => ({ tagged: c.tag !== null, note: c.note })), ...(order ? [{ tagged: order.tag !== null, note: order.note }] : [])]
    for (const { tagged, note } of notes.sort((a, b) => Number(b.tagged) - Number(a.tagged))) lines.push(`    ${tagged ? note : pc.dim(note)}`)
  }
  return lines
}

/** Why a proof failed, when no test's own failures say it. */
function proofFailure(proven: readonly { status: string; passed: boolean }[], unreplayed: string, complete: boolean): string {
  if (proven.length === 0) return ': no test was flaky in the last policy.json'
  if (unreplayed) return unreplayed
  if (!proven.some((p) => !p.passed) && !complete) return ': the run is incomplete (above), so it proves nothing'
  if (proven.every((p) => p.status === 'not-selected')) return ': none of the tests it proves ran (a file, -t or project filter left them out); run them'
  return ''
}

/** A run error on one line: where (its project and file, or outside any file), then its first line. */
export function runErrorLine({ project, file, error }: RunError): string {
  return `${file === null ? 'outside any file' : `${project ? `[${project}] ` : ''}${file}`}: ${error.split('\n')[0]}`
}
