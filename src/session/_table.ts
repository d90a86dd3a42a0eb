import pc from 'picocolors'
import type { ConditionsFile } from '../artifacts/conditions-schema.js'
import { countOf } from '../artifacts/counts-text.js'
import { culpritsText, needsCulprit } from '../artifacts/culprit-text.js'
import { brokenAsUsual } from '../artifacts/independence-text.js'
import { stripAnsi } from '../core/ansi.js'
import type { Hints } from '../core/hints.js'
import { shellLines, wrap } from '../core/text-layout.js'
import type { Verdict } from '../core/verdict.js'
import type { TestOutcome } from '../pipeline/test-run.js'

/** What the table needs besides the outcomes: the width to fit and the runner's commands. */
export interface TableContext {
  /** Columns of the terminal (src/core/text-layout.ts `terminalWidth`): no line is wider, but a command. */
  width: number
  /** The runner's own commands (src/core/hints.ts): never another runner's syntax. */
  hints: Hints
  /** Of the intervals and of the green runs' plan, e.g. 0.95. */
  confidence: number
  /** Repetitions asked for per test, and whole-run rounds (1 without): what a cut-short test is measured again with. */
  repeat: number
  rounds?: number | undefined
  /** conditions.json of the run, when rounds searched the order: a tagged test is headlined order-dependent. */
  conditions?: ConditionsFile | undefined
}

/**
 * Rows the terminal lists, worst first: a run with hundreds of concerning tests (a rule tester's
 * cases, each non-idempotent) printed a row and an error per test, pages of them. The rest are
 * counted by verdict on one line; report.html and flaky_report.md list every one.
 */
export const TABLE_ROWS = 25

/**
 * The terminal summary, worst first (the first TABLE_ROWS): per test a row (verdict, "failures of repetitions", interval,
 * the green runs a fix needs, the gapped repetitions), then its id on a line of its own (cut from the
 * left when wider than the terminal, so the test's own name stays), then its first error. After the
 * rows, what the row's terms mean in words, and one next step per verdict shown, in the runner's
 * syntax. Every line fits `width` except a command, which is broken with ` \` where it can be.
 * A test the order search tagged is headlined `order-dependent` (and, failing only after its
 * culprit, gets no green runs: a rate of an order is no chance); a broken one, a bug, gets none.
 */
export function renderTable(outcomes: readonly TestOutcome[], context: TableContext): string[] {
  if (outcomes.length === 0) return []
  const { width, conditions } = context
  const shown = outcomes.slice(0, TABLE_ROWS)
  const rows = shown.map(({ tally, verdict, ci, greenRuns }) => {
    const order = conditions?.tests[tally.id]?.order
    const ordered = order?.tag === 'order-dependent'
    // Failed only in rounds with the culprit before it (`needs`: only without): its row names it instead of green runs.
    const needs = ordered && needsCulprit(order)
    const onlyAfter = ordered && (needs ? order.after_culprit.failures === 0 : order.otherwise.failures === 0)
    return {
      verdict: ordered ? ('order-dependent' as const) : verdict,
      counts: countOf(tally.fast.failures, tally.fast.trials),
      interval: `[${pct(ci.low)}, ${pct(ci.high)}]`,
      runs: onlyAfter ? (needs ? `fails unless ${culpritsText(order, 'en')} runs first` : `fails after ${culpritsText(order, 'en')}`) : greenRuns === null || verdict === 'broken' ? '' : `fix: ${greenRuns} green runs`,
      slow: tally.slow.trials > 0 ? `slow ${countOf(tally.slow.failures, tally.slow.trials)}` : '',
    }
  })
  const widthOf = (key: 'verdict' | 'counts' | 'interval' | 'runs' | 'slow'): number => Math.max(...rows.map((r) => r[key].length))
  const lines: string[] = []
  shown.forEach(({ tally }, index) => {
    const r = rows[index] as (typeof rows)[number]
    const head = [paint(r.verdict, r.verdict.toUpperCase().padEnd(widthOf('verdict'))), r.counts.padStart(widthOf('counts')), r.interval.padEnd(widthOf('interval'))]
    // An empty column is left out, not painted: a colour code around nothing is trailing junk that trimEnd keeps.
    const runs = r.slow === '' ? r.runs : r.runs.padEnd(widthOf('runs'))
    const tail = [runs === '' ? '' : pc.dim(runs), r.slow].filter((part) => part !== '')
    // The green runs and the gapped count join the row when they fit, else they follow the id.
    const fits = stripAnsi(`  ${[...head, ...tail].join('  ')}`).trimEnd().length <= width
    lines.push(`  ${(fits ? [...head, ...tail] : head).join('  ')}`.trimEnd())
    lines.push(`    ${fromLeft(shownId(tally.id), width - 4)}`)
    const rest = [r.runs, r.slow].filter((part) => part !== '').join('  ')
    if (!fits && rest !== '') lines.push(pc.dim(`    ${rest}`))
    const error = firstLine(tally.errors[0])
    if (error !== '' && r.verdict !== 'stable') lines.push(pc.dim(`    ${fromRight(error, width - 4)}`))
  })
  const hidden = outcomes.slice(TABLE_ROWS)
  if (hidden.length > 0) lines.push(...paragraph(`… and ${hidden.length} more (${countsByVerdict(hidden)}): report.html and flaky_report.md list every one`, width, 2, 4).map((line) => pc.dim(line)))
  // The green runs are explained from a row that shows them: one failing only after its culprit names it instead.
  const planning = (i: number): boolean => rows[i]?.runs.startsWith('fix: ') === true
  const planned = shown.find((o, i) => o.verdict === 'flaky' && planning(i)) ?? shown.find((_, i) => planning(i))
  return [...lines, ...legend(shown, planned, context), ...nextSteps(outcomes, context)]
}

/** A test's id on one line: a name with line breaks (a rule tester's case is its code) shows them as `\n`. */
export function shownId(id: string): string {
  return id.replace(/\r?\n/g, '\\n')
}

/** `3 flaky, 140 non-idempotent`: how many of each verdict, worst first as `outcomes` are sorted. */
function countsByVerdict(outcomes: readonly TestOutcome[]): string {
  const counts = new Map<string, number>()
  for (const { verdict } of outcomes) counts.set(verdict, (counts.get(verdict) ?? 0) + 1)
  return [...counts].map(([verdict, n]) => `${n} ${verdict}`).join(', ')
}

// --- internal ---

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`

/**
 * Each verdict's colour, by severity: broken and non-idempotent (its rate is no probability) as
 * loud as a failure, flaky a warning, a test measured too little quiet but readable. Keyed by every
 * verdict, so a new one must be given its colour here.
 */
const COLOURS: Readonly<Record<Verdict | 'order-dependent', (text: string) => string>> = {
  broken: (text) => pc.bold(pc.red(text)),
  'non-idempotent': (text) => pc.bold(pc.magenta(text)),
  flaky: (text) => pc.bold(pc.yellow(text)),
  'order-dependent': (text) => pc.bold(pc.yellow(text)),
  undetermined: (text) => pc.bold(pc.blue(text)),
  partial: (text) => pc.cyan(text),
  stable: (text) => pc.green(text),
}

const paint = (verdict: Verdict | 'order-dependent', text: string): string => COLOURS[verdict](text)

/** `…` and the end of `text` when it is wider than `room`: the end of an id is the test's own name. */
function fromLeft(text: string, room: number): string {
  return text.length <= room ? text : `…${text.slice(text.length - room + 1)}`
}

/** The start of `text` and `…` when it is wider than `room`: an error's start says what it is. */
function fromRight(text: string, room: number): string {
  return text.length <= room ? text : `${text.slice(0, room - 1)}…`
}

/** An error's first line that says something, without the runner's colours. */
function firstLine(error: string | undefined): string {
  return (stripAnsi(error ?? '').split(/\r?\n/).find((line) => line.trim() !== '') ?? '').trim()
}

/** `text` wrapped to `width`, its first line indented by `first` spaces, the others by `rest`. */
function paragraph(text: string, width: number, first: number, rest: number): string[] {
  return wrap(text, width, rest, first).map((line, i) => (i === 0 ? `${' '.repeat(first)}${line}` : line))
}

/** The row's short terms in words, each once, only when a row shows it (`planned`: a row that shows its green runs). */
function legend(outcomes: readonly TestOutcome[], planned: TestOutcome | undefined, { width, confidence }: TableContext): string[] {
  const lines: string[] = []
  const chance = `${Math.round((1 - confidence) * 1000) / 10}%`
  if (planned) {
    const n = planned.greenRuns as number
    lines.push(...paragraph(`fix: ${n} green runs: once you fix it, the test must pass ${n} runs in a row; a test still failing as often as measured would do that at most ${chance} of the time.`, width, 2, 4))
  }
  const gapped = outcomes.find((o) => o.tally.slow.trials > 0)
  if (gapped) {
    const { failures, trials, gapMs } = gapped.tally.slow
    const fast = gapped.tally.fast
    lines.push(...paragraph(`slow ${countOf(failures, trials)}: of ${trials} repetitions each after a pause of ${gapMs} ms, ${failures} failed, against ${countOf(fast.failures, fast.trials)} without the pause; a difference means time between runs matters (observer.json says whether it is one).`, width, 2, 4))
  }
  return lines.length === 0 ? [] : ['', ...lines.map((line) => pc.dim(line))]
}

/** One next step per verdict shown, worst first, each a sentence and the command that takes it. */
function nextSteps(outcomes: readonly TestOutcome[], context: TableContext): string[] {
  const { width, hints, repeat } = context
  const first = (verdict: Verdict): TestOutcome | undefined => outcomes.find((o) => o.verdict === verdict)
  const steps: { text: string; command: string | null }[] = []
  const broken = first('broken')
  if (broken) {
    const { project, file, name } = broken.tally
    // Its file whole, once: a test alone (`-t`) meets other state than in the run, and repetitions
    // of the tests before it can leave state (a counter, an id) that fails every one of its own.
    // Plain runs of its file after the measurement (src/pipeline/plain-evidence.ts) failed it too, or
    // every round ran each test once (an ordinary run, no repetition to leave state): no caveat left.
    const text =
      repeat === 1
        ? 'broken: it failed in every run, each test of its file once a run; run its file and read the error:'
        : brokenAsUsual(broken.tally.plainEvidence)
          ? 'broken: it failed every repetition, and every run of its file as usual; run its file and read the error:'
          : 'broken: it failed every repetition; run its file as usual and read the error (if the test passes there, the repetitions broke it with state they leave):'
    steps.push({ text, command: hints.runTest({ project, file, name }, true) })
  }
  if (first('flaky')) steps.push({ text: 'flaky: find the cause in report.html; once fixed, prove it (its green runs):', command: hints.again('--flaky-proof') })
  const again = (context.rounds ?? 1) > 1 ? `--flaky-rounds ${context.rounds} --flaky-repeat ${repeat}` : `--flaky-repeat ${repeat}`
  if (first('partial')) steps.push({ text: 'partial: cut short before all its repetitions ran; measure it again:', command: hints.again(again) })
  if (steps.length === 0) return []
  const lines = ['', pc.bold('  next:')]
  for (const { text, command } of steps) {
    lines.push(...paragraph(text, width, 4, 6))
    if (command !== null) lines.push(...shellLines(command, width, 6).map((line) => pc.cyan(line)))
  }
  return lines
}
