import type { Independence } from '../core/independence.js'
import { type HintContext, hintsFor, needsItsFile, type UndeterminedSubject } from '../core/hints.js'
import { doubleQuoted } from '../core/shell-words.js'
import type { PlainEvidence } from './test-schemas.js'

/**
 * What the runs test found, in words, for the report, the CLI's notes and the terminal table.
 * One sentence each: the cause of a non-idempotent verdict, how to measure it properly instead,
 * and the clue that clustered or regular failures give.
 */

/** Plain-run evidence as its numbers say it: rate.json's `plain_evidence` without its note. */
export type PlainFinding = Omit<PlainEvidence, 'note'>

/** Command mode measures trials; test mode measures repetitions. */
export type Unit = 'trial' | 'repetition'

/** How a command is set off in the sentence: markdown's backquotes by default; HTML passes its own. */
export type CodeFormat = (command: string) => string
const backquoted: CodeFormat = (command) => `\`${command}\``

export interface IndependenceText {
  /** Non-idempotent: what happened and why its rate means nothing. */
  cause: (independence: Independence, unit: Unit) => string
  /** Non-idempotent, command mode: every trial is a fresh process, so the state it leaves outside must be reset first. */
  freshEnvironment: (command: string, code?: CodeFormat) => string
  /**
   * Non-idempotent in runs that were each a fresh process already (`repeat`, `ingest`): where the
   * state lives, and the runner's own command for the test alone when known (src/core/hints.ts).
   */
  alreadyFresh: (command: string | null, code?: CodeFormat) => string
  /** Undetermined: the switch seen, how likely chance makes it, and that it is neither a rate nor a cause. */
  undetermined: (independence: Independence, unit: Unit) => string
  /** Undetermined: the command that would decide it (src/core/hints.ts `decide`). */
  decide: (command: string, code?: CodeFormat) => string
  /** Clustered or regular: a clue, and the reminder that the interval assumes independence; else null. */
  clue: (independence: Independence, unit: Unit) => string | null
  /** The runs test in one line, whatever it found. */
  summary: (independence: Independence, unit: Unit) => string
  /** A test that failed every repetition: what plain runs of its file found (src/pipeline/plain-evidence.ts), from its numbers. */
  plain: (evidence: PlainFinding) => string
  /**
   * Such a test, not broken, or a non-idempotent one of a test-mode run: how to measure its rate in
   * ordinary runs of its file (src/core/hints.ts `plainRate`); empty without a command.
   */
  plainRate: (command: string | null, code?: CodeFormat) => string
  notTested: (jobs: number) => string
  noNumber: (unit: Unit) => string
}

const p = (independence: Independence): string => independence.p_value.toPrecision(3)
const expected = (independence: Independence): string => independence.expected_runs.toFixed(1)
const upTo = (last: number, unit: string): string => (last === 1 ? `${unit} 1` : `${unit}s 1–${last}`)

/** 1 in 10, from a p-value that is the share of equally likely orders. */
const oneIn = (p: number): string => (p > 0 && Number.isFinite(1 / p) && Math.abs(1 / p - Math.round(1 / p)) < 1e-6 ? `1 order in ${Math.round(1 / p)}` : `a share ${p.toPrecision(3)} of the orders`)
const oneInKo = (p: number): string => (p > 0 && Number.isFinite(1 / p) && Math.abs(1 / p - Math.round(1 / p)) < 1e-6 ? `${Math.round(1 / p)}가지 순서 중 1가지` : `순서의 ${p.toPrecision(3)}`)

const EN: IndependenceText = {
  cause: (i, unit) => {
    const s = i.switch_at ?? 0
    return i.switched_to === 'failed'
      ? `Passed ${upTo(s - 1, unit)}, then failed every ${unit} from ${s} on: state left by one ${unit} breaks the next, so the rate measures that state, not a chance of failing.`
      : `Failed ${upTo(s - 1, unit)}, then passed every ${unit} from ${s} on: ${s === 2 ? `the first ${unit}` : `the first ${unit}s`} met a state the later ones did not (a cold cache, a file not yet written), so fresh runs would likely fail every time.`
  },
  undetermined: (i, unit) => {
    const s = i.switch_at ?? 0
    const shape = i.switched_to === 'failed' ? `Passed ${upTo(s - 1, unit)}, then failed every ${unit} from ${s} on` : `Failed ${upTo(s - 1, unit)}, then passed every ${unit} from ${s} on`
    const p = i.switch_p_value ?? 1
    return `${shape}, but chance makes that shape too often to call it a state switch: ${oneIn(p)} with these counts (p = ${p.toPrecision(3)}). Undetermined: neither a chance of failing nor a cause, so no runs needed, retry budget or quarantine is given.`
  },
  decide: (command, code = backquoted) => `Decide it with fresh-state runs: ${code(command)}.`,
  plainRate: (command, code = backquoted) => (command === null ? '' : `Measure its rate in ordinary runs instead, each test of its file once a run: ${code(command)}.`),
  freshEnvironment: (command, code = backquoted) =>
    `Measure it with fresh runs instead: run it in a fresh environment each time, resetting the state it leaves before every trial (e.g. ${code(`npx flakeproof measure --cmd ${doubleQuoted(`<reset> && ${command}`)} --trials 20 --out fresh-rate.json`)}).`,
  alreadyFresh: (command, code = backquoted) =>
    `Each run was a fresh process already, so the state that changed outlives the process (files, a database, a cache, a service): reset it before every run (${code("-- sh -c '<reset> && <test command>'")})${command === null ? '.' : `, and look at the test alone with its runner: ${code(command)}.`}`,
  clue: (i, unit) => {
    if (i.pattern === 'clustered') {
      return `Failures came in bursts (${i.runs} runs of equal outcomes where ${expected(i)} are expected by chance, runs test p = ${p(i)}): a clue to a shared cause; the interval assumes independent ${unit}s.`
    }
    if (i.pattern !== 'regular') return null
    const period = i.period === null ? '' : `, exactly every ${i.period} ${unit}s`
    return `Failures were spread too evenly (${i.runs} runs of equal outcomes where ${expected(i)} are expected by chance, runs test p = ${p(i)})${period}: a clue (a counter, a cycle); the interval assumes independent ${unit}s.`
  },
  plain: (e) => {
    const passed = e.plain.trials - e.plain.failures
    const counts = `${passed} of ${e.plain.trials} plain run${e.plain.trials === 1 ? '' : 's'} of its file passed it, against ${e.measured.trials - e.measured.failures} of ${e.measured.trials} measured copies; p = ${e.p_value.toPrecision(3)}`
    const control = `${e.control.failures} of ${e.control.trials} copies failed in a control run of its file with repetitions`
    if (e.decided === 'non-idempotent') {
      return `It failed every repetition, yet passes when its file runs as usual (${counts}; ${control}): the repetitions, its own or those of the tests before it, leave state that fails it, so the count measures that state, not a chance of failing.`
    }
    if (e.decided === 'undetermined' && e.control.failures < e.control.trials) {
      return `It failed every repetition, and passed plain runs of its file (${counts}), but its copies passed too when its file ran again with repetitions under the same conditions (${control}): something else in the measured run failed it (coverage, the other files, the load), not the repetitions.`
    }
    if (e.decided === 'undetermined') return `It failed every repetition, and passed some plain runs of its file (${counts}; ${control}): too few to say whether the repetitions break it or it fails this often anyway.`
    if (e.plain.trials === 0) return `No plain run of its file executed it (${e.rounds} of ${e.budget} runs gathered): it stays broken as measured.`
    return `It failed every plain run of its file too (${counts}): broken, not broken by the repetitions.`
  },
  summary: (i, unit) =>
    EN.clue(i, unit) ??
    (i.pattern === 'one-switch'
      ? EN.cause(i, unit)
      : `Order of outcomes: ${i.runs} runs of equal outcomes, ${expected(i)} expected by chance (Wald–Wolfowitz runs test, p = ${p(i)}): no sign that ${unit}s depend on each other.`),
  notTested: (jobs) => `Independence not tested: with ${jobs} trials at once, their order is no sequence.`,
  noNumber: (unit) =>
    `No runs needed, retry budget or quarantine threshold is given: the ${unit}s are not independent, so their rate is not a chance of failure that any number of passes could rule out.`,
}

const KO_UNIT = { trial: '시도', repetition: '반복' } as const

const KO: IndependenceText = {
  cause: (i, unit) => {
    const s = i.switch_at ?? 0
    const u = KO_UNIT[unit]
    return i.switched_to === 'failed'
      ? `처음 ${s - 1}번은 통과했고 ${s}번째 ${u}부터는 매번 실패했습니다: 앞선 ${u}에서 남은 상태가 다음 ${u}에서 실패를 일으키므로, 이 실패율은 실패할 확률이 아니라 그 상태를 잴 뿐입니다.`
      : `처음 ${s - 1}번은 실패했고 ${s}번째 ${u}부터는 매번 통과했습니다: 처음 ${u}에서만 다른 상태(차가운 캐시, 아직 없는 파일)를 만나므로, 새 환경에서 실행하면 매번 실패할 가능성이 큽니다.`
  },
  undetermined: (i, unit) => {
    const s = i.switch_at ?? 0
    const u = KO_UNIT[unit]
    const shape = i.switched_to === 'failed' ? `처음 ${s - 1}번은 통과했고 ${s}번째 ${u}부터는 매번 실패했습니다` : `처음 ${s - 1}번은 실패했고 ${s}번째 ${u}부터는 매번 통과했습니다`
    const p = i.switch_p_value ?? 1
    return `${shape}. 하지만 이 횟수에서는 우연으로도 자주 나오는 모양입니다: ${oneInKo(p)} (p = ${p.toPrecision(3)}). 판정 보류 (undetermined): 실패 확률도 원인도 아니므로 필요한 횟수, 재시도 예산, 격리 기준을 계산하지 않습니다.`
  },
  decide: (command, code = backquoted) => `새 상태에서 실행해서 판정하세요: ${code(command)}.`,
  plainRate: (command, code = backquoted) => (command === null ? '' : `대신 평소 실행에서의 실패율을 측정하세요 (실행마다 파일의 각 테스트를 한 번씩): ${code(command)}.`),
  freshEnvironment: (command, code = backquoted) =>
    `대신 매번 새 환경에서 실행해서 측정하세요. 시도마다 남은 상태를 먼저 지우세요 (예: ${code(`npx flakeproof measure --cmd ${doubleQuoted(`<초기화> && ${command}`)} --trials 20 --out fresh-rate.json`)}).`,
  alreadyFresh: (command, code = backquoted) =>
    `실행마다 이미 새 프로세스였으므로, 바뀐 상태는 프로세스 밖(파일, 데이터베이스, 캐시, 서비스)에 남아 있습니다: 실행마다 먼저 초기화하세요 (${code("-- sh -c '<초기화> && <테스트 명령>'")})${command === null ? '.' : `. 테스트 하나만 그 러너로 보려면: ${code(command)}.`}`,
  clue: (i, unit) => {
    const u = KO_UNIT[unit]
    if (i.pattern === 'clustered') {
      return `실패가 몰려서 일어났습니다 (같은 결과의 연속 구간 ${i.runs}개, 우연이라면 ${expected(i)}개 예상, 연속 검정 p = ${p(i)}): 공통 원인의 단서입니다. 구간 추정은 ${u}끼리 독립이라고 가정합니다.`
    }
    if (i.pattern !== 'regular') return null
    const period = i.period === null ? '' : `, 정확히 ${i.period}번마다 실패`
    return `실패가 너무 고르게 퍼져 있습니다 (같은 결과의 연속 구간 ${i.runs}개, 우연이라면 ${expected(i)}개 예상, 연속 검정 p = ${p(i)})${period}: 카운터나 주기의 단서입니다. 구간 추정은 ${u}끼리 독립이라고 가정합니다.`
  },
  plain: (e) => {
    const counts = `파일을 평소처럼 ${e.plain.trials}번 실행해서 ${e.plain.trials - e.plain.failures}번 통과, 측정한 반복은 ${e.measured.trials}번 중 ${e.measured.trials - e.measured.failures}번 통과; p = ${e.p_value.toPrecision(3)}`
    const control = `같은 조건에서 반복하며 다시 실행한 대조 실행에서는 ${e.control.trials}번 중 ${e.control.failures}번 실패`
    if (e.decided === 'non-idempotent') {
      return `모든 반복에서 실패했지만 파일을 평소처럼 실행하면 통과합니다 (${counts}; ${control}): 이 테스트나 앞선 테스트의 반복이 남긴 상태 때문에 실패하므로, 이 실패율은 실패할 확률이 아니라 그 상태를 잴 뿐입니다.`
    }
    if (e.decided === 'undetermined' && e.control.failures < e.control.trials) {
      return `모든 반복에서 실패했고 파일을 평소처럼 실행하면 통과했지만 (${counts}), 같은 조건에서 반복해도 통과했습니다 (${control}): 반복이 아니라 측정 실행의 다른 조건(커버리지, 다른 파일, 부하)이 실패를 일으켰습니다.`
    }
    if (e.decided === 'undetermined') return `모든 반복에서 실패했고, 파일을 평소처럼 실행했을 때 일부는 통과했습니다 (${counts}; ${control}): 반복 때문에 실패하는지, 원래 이만큼 자주 실패하는지 판정하기에는 너무 적습니다.`
    if (e.plain.trials === 0) return `파일을 평소처럼 실행했을 때 이 테스트는 실행되지 않았습니다 (${e.budget}번 중 ${e.rounds}번 수집): 측정한 대로 항상 실패로 둡니다.`
    return `파일을 평소처럼 실행해도 매번 실패했습니다 (${counts}): 반복 때문이 아니라 원래 실패하는 테스트입니다.`
  },
  summary: (i, unit) =>
    KO.clue(i, unit) ??
    (i.pattern === 'one-switch'
      ? KO.cause(i, unit)
      : `결과의 순서: 같은 결과의 연속 구간 ${i.runs}개, 우연이라면 ${expected(i)}개 예상 (Wald–Wolfowitz 연속 검정, p = ${p(i)}): ${KO_UNIT[unit]}끼리 영향을 준다는 징후가 없습니다.`),
  notTested: (jobs) => `독립성은 검정하지 않았습니다: 동시에 ${jobs}개씩 실행하면 시도 순서가 하나의 수열이 아닙니다.`,
  noNumber: (unit) =>
    `필요한 횟수, 재시도 예산, 격리 기준을 계산하지 않습니다: ${KO_UNIT[unit]}끼리 독립이 아니므로 이 실패율은 몇 번의 통과로 배제할 수 있는 실패 확률이 아닙니다.`,
}

export const INDEPENDENCE_TEXT = { en: EN, ko: KO }

/**
 * How to measure a non-idempotent test. Test mode: its rate in ordinary runs of its file, each test
 * once a run, so the tests before it still run (a state a sibling leaves stays in what is measured)
 * and it is counted alone. After `repeat`/`ingest`, whose runs were fresh processes already: where
 * the state lives, and the producer's command for the test (its file whole when it may need its
 * siblings).
 */
export function nonIdempotentAdviceFor(
  text: IndependenceText,
  context: HintContext,
  test: { project: string; file: string; name: string; independence?: Independence | null | undefined },
  tags: readonly string[] | undefined,
  code?: CodeFormat,
): string {
  if (context.runner === 'reports') return text.alreadyFresh(hintsFor(context).runTest(test, needsItsFile({ independence: test.independence, tags })), code)
  return plainAdviceFor(text, context, test, code)
}

/**
 * A broken test plain runs of its file failed too (src/pipeline/plain-evidence.ts), or one of a run
 * whose every round ran each test once (`measured.repeat` 1: each trial an ordinary run): no caveat
 * left that the repetitions broke it.
 */
export function brokenAsUsual(evidence: Pick<PlainFinding, 'plain'> | undefined, measured?: { repeat: number }): boolean {
  return (evidence?.plain.trials ?? 0) > 0 || measured?.repeat === 1
}

/** How to measure a test plain runs of its file decided is not broken: its rate in ordinary runs, in its runner's syntax. */
export function plainAdviceFor(text: IndependenceText, context: HintContext, test: { project: string; file: string; name: string }, code?: CodeFormat): string {
  return text.plainRate(hintsFor(context).plainRate(test), code)
}

/** How to decide an undetermined subject: the run its runner's hints give (src/core/hints.ts `decide`), in a sentence. */
export function decideAdviceFor(text: IndependenceText, context: HintContext, subject: UndeterminedSubject, code?: CodeFormat): string {
  return text.decide(hintsFor(context).decide(subject), code)
}

/** A predicate's corrected p-value in its table: two significant digits; a dash in a file written before it had one. */
export function predicateP(p: number | undefined): string {
  return p === undefined ? '–' : p.toPrecision(2)
}
