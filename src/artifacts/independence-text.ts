import type { Independence } from '../core/independence.js'

/**
 * What the runs test found, in words, for the report, the CLI's notes and the terminal table.
 * One sentence each: the cause of a non-idempotent verdict, how to measure it properly instead,
 * and the clue that clustered or regular failures give.
 */

/** A test as test mode names it, for a command that measures it alone in fresh processes. */
export interface TestSubject {
  project: string
  file: string
  name: string
}

/** Command mode measures trials; test mode measures repetitions. */
export type Unit = 'trial' | 'repetition'

export interface IndependenceText {
  /** Non-idempotent: what happened and why its rate means nothing. */
  cause: (independence: Independence, unit: Unit) => string
  /** Non-idempotent: how to measure it properly (fresh runs). */
  freshRun: (subject: TestSubject | string) => string
  /** Undetermined: the switch seen, how likely chance makes it, and that it is neither a rate nor a cause. */
  undetermined: (independence: Independence, unit: Unit) => string
  /** Undetermined: the command that would decide it (deciding-command.ts). */
  decide: (command: string) => string
  /** Clustered or regular: a clue, and the reminder that the interval assumes independence; else null. */
  clue: (independence: Independence, unit: Unit) => string | null
  /** The runs test in one line, whatever it found. */
  summary: (independence: Independence, unit: Unit) => string
  notTested: (jobs: number) => string
  noNumber: (unit: Unit) => string
}

/**
 * `flakeproof measure` over fresh Vitest processes running only this test: `-t` matches Vitest's
 * full name (suite and test names joined by spaces) as a regular expression, so it is escaped.
 */
export function freshRunCommand(test: TestSubject): string {
  // Anchored: an unanchored pattern also runs every test whose name merely contains this one.
  const pattern = `^${test.name.split(' > ').join(' ').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`
  const project = test.project === '' ? '' : ` --project ${shellWord(test.project)}`
  const vitest = `npx vitest run ${shellWord(test.file)} -t ${shellWord(pattern)}${project}`
  return `flakeproof measure --cmd ${doubleQuoted(vitest)} --trials 20 --out .flakeproof/fresh-rate.json`
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
  decide: (command) => `Decide it with fresh-state runs: \`${command}\`.`,
  freshRun: (subject) =>
    typeof subject === 'string'
      ? `Measure it with fresh runs instead: run it in a fresh environment each time, resetting the state it leaves before every trial (e.g. \`flakeproof measure --cmd ${doubleQuoted(`<reset> && ${subject}`)} --trials 20 --out fresh-rate.json\`).`
      : `Measure it with fresh runs instead: \`${freshRunCommand(subject)}\`.`,
  clue: (i, unit) => {
    if (i.pattern === 'clustered') {
      return `Failures came in bursts (${i.runs} runs of equal outcomes where ${expected(i)} are expected by chance, runs test p = ${p(i)}): a clue to a shared cause; the interval assumes independent ${unit}s.`
    }
    if (i.pattern !== 'regular') return null
    const period = i.period === null ? '' : `, exactly every ${i.period} ${unit}s`
    return `Failures were spread too evenly (${i.runs} runs of equal outcomes where ${expected(i)} are expected by chance, runs test p = ${p(i)})${period}: a clue (a counter, a cycle); the interval assumes independent ${unit}s.`
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
  decide: (command) => `새 상태에서 실행해서 판정하세요: \`${command}\`.`,
  freshRun: (subject) =>
    typeof subject === 'string'
      ? `대신 매번 새 환경에서 실행해서 측정하세요. 시도마다 남은 상태를 먼저 지우세요 (예: \`flakeproof measure --cmd ${doubleQuoted(`<초기화> && ${subject}`)} --trials 20 --out fresh-rate.json\`).`
      : `대신 새로 실행해서 측정하세요: \`${freshRunCommand(subject)}\`.`,
  clue: (i, unit) => {
    const u = KO_UNIT[unit]
    if (i.pattern === 'clustered') {
      return `실패가 몰려서 일어났습니다 (같은 결과의 연속 구간 ${i.runs}개, 우연이라면 ${expected(i)}개 예상, 연속 검정 p = ${p(i)}): 공통 원인의 단서입니다. 구간 추정은 ${u}끼리 독립이라고 가정합니다.`
    }
    if (i.pattern !== 'regular') return null
    const period = i.period === null ? '' : `, 정확히 ${i.period}번마다 실패`
    return `실패가 너무 고르게 퍼져 있습니다 (같은 결과의 연속 구간 ${i.runs}개, 우연이라면 ${expected(i)}개 예상, 연속 검정 p = ${p(i)})${period}: 카운터나 주기의 단서입니다. 구간 추정은 ${u}끼리 독립이라고 가정합니다.`
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

/** A word for sh: bare when it is safe, else in single quotes. */
export function shellWord(text: string): string {
  return /^[\w./@%+=:,-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`
}

/** A double-quoted argument for the user's shell: `"`, `\`, `$` and backquote escaped. */
export function doubleQuoted(text: string): string {
  return `"${text.replace(/["\\$`]/g, '\\$&')}"`
}
