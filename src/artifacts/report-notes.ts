import { type Comparison, comparisonSides, type CountUnit, type OrderFinding, orderSides } from './conditions-schema.js'
import { countOf } from './counts-text.js'
import { culpritsText, needsCulprit, tiedText } from './culprit-text.js'
import { type FreshRate, freshRateText } from './fresh-rate-text.js'
import { INDEPENDENCE_TEXT } from './independence-text.js'
import type { ObserverFile, RateFile, RunsNeededFile } from './schemas.js'
import type { TestObserver } from './test-schemas.js'

/**
 * The sentences the artifacts carry as `note` (observer.json, runs_needed.json, conditions.json),
 * in the report's language. English reads the stored note, word for word what the JSON says;
 * Korean says the same from the same numbers, so no English sentence is left in a Korean report.
 * Plain text: the HTML report escapes it, the markdown report prints it.
 */
export interface ReportNotes {
  observer: (observer: Pick<ObserverFile, 'fast' | 'slow' | 'changed' | 'p_value' | 'note'> & Partial<Pick<TestObserver, 'paired' | 'paired_p_value' | 'drift_p_value'>>, confidence: number) => string
  /** runs_needed.json's note; null when it has none. */
  plan: (runsNeeded: Pick<RunsNeededFile, 'basis' | 'planned_rate' | 'trials' | 'note'>, rate: Pick<RateFile, 'independence'>) => string | null
  comparison: (comparison: Comparison) => string
  order: (order: OrderFinding) => string
  /** A comparison side's label (`serial`, `gapped 2000 ms`, …) in the report's language. */
  side: (label: string) => string
  /** A count of rounds (a condition's, an order's) or of executions, said so. */
  countIn: (part: number, whole: number, unit: CountUnit) => string
  /** After a predicate of the whole round: its counts are rounds. */
  inRounds: string
  fresh: (fresh: FreshRate) => string
}

export type ReportLanguage = 'en' | 'ko'

export const REPORT_NOTES: Record<ReportLanguage, ReportNotes> = {
  en: {
    observer: (o) => o.note,
    plan: (runsNeeded) => runsNeeded.note,
    comparison: (c) => c.note,
    order: (o) => o.note,
    side: (label) => label,
    countIn: (part, whole, unit) => `${countOf(part, whole)} ${unit}`,
    inRounds: ' (counted in rounds)',
    fresh: freshRateText,
  },
  ko: {
    observer: (o, confidence) => `${observerKo(o)}${o.paired ? ` ${interleavedKo(o.fast, o.paired, o.slow, o.paired_p_value, o.drift_p_value, 1 - confidence)}` : ''}`,
    plan: (runsNeeded, rate) => {
      if (runsNeeded.basis === 'ci_high') return `${runsNeeded.trials ?? 0}번 동안 한 번도 실패하지 않아 관측 실패율 0으로는 계획할 수 없으므로, 구간 상한 ci_high = ${runsNeeded.planned_rate}로 계획했습니다.`
      if (runsNeeded.basis === 'ci_low') return `${runsNeeded.trials ?? 0}번 모두 실패했습니다: 간헐적 실패가 아니라 결정적인 실패입니다. 구간 하한 ci_low = ${runsNeeded.planned_rate}로 계획했습니다. 먼저 실패를 고치세요.`
      if (runsNeeded.note === null || !rate.independence) return null
      return INDEPENDENCE_TEXT.ko.clue(rate.independence, 'trial')
    },
    comparison: (c) => {
      const { a, b, unit } = comparisonSides(c)
      const sides = `${sideKo(c.a.label)} ${UNIT_KO[unit]} ${a.failures}/${a.trials}, ${sideKo(c.b.label)} ${UNIT_KO[unit]} ${b.failures}/${b.trials}, p = ${c.p_value.toPrecision(3)}`
      if (c.tag) return `${sideKo(c.a.label)}에서만 실패하고 ${sideKo(c.b.label)}에서는 실패하지 않았습니다 (${sides}): ${CAUSES_KO[c.kind]}.`
      if (c.significant) return `차이가 있지만 (${sides}) ${sideKo(c.b.label)}에서도 실패합니다: 이 조건은 실패를 늘릴 뿐, 유일한 원인은 아닙니다.`
      return `이 횟수로는 차이를 찾지 못했습니다 (${sides})${c.trials_to_see === null ? '; 이 실패율로는 현실적인 횟수로 차이를 볼 수 없습니다' : `; 양쪽 각각 약 ${c.trials_to_see}${unit === 'rounds' ? '번의 라운드를 돌리면' : '번 실행하면'} 차이가 보일 것입니다`}.`
    },
    order: (o) => {
      const { after, otherwise, unit } = orderSides(o)
      const sides = `앞에 실행된 ${UNIT_KO[unit]} ${after.failures}/${after.trials}, 그 밖의 ${UNIT_KO[unit]} ${otherwise.failures}/${otherwise.trials}에서 실패, p = ${o.p_value.toPrecision(3)}`
      const names = culpritsText(o, 'ko')
      const tied = tiedText(o, 'ko')
      const either = tied === '' ? '' : `; ${tied}`
      if (!o.significant) return `이 횟수로는 순서 의존성을 찾지 못했습니다 (가장 가까운 후보: ${names}, ${sides}).`
      const replay = (order: OrderFinding['failing_order'], what: string): string => (order === null || order.seed === null ? '' : ` ${what}: --flaky-seed ${order.seed}.`)
      const cause = needsCulprit(o)
        ? `${names}가 먼저 실행되지 않으면 실패합니다 (${sides}${either}): 이 테스트는 앞서 실행된 테스트가 남기는 상태(모듈, 전역 변수, 목, 타이머)가 필요합니다. 그 상태를 이 테스트나 훅에서 직접 준비하세요.`
        : `${names}가 먼저 실행되면 실패합니다 (${sides}${either}): 그 테스트가 남긴 상태(모듈, 전역 변수, 목, 타이머)가 이 테스트를 깨뜨립니다.`
      return `${cause}${replay(o.failing_order, '실패하는 순서 재현')}${replay(o.passing_order, '통과하는 순서')}`
    },
    side: (label) => sideKo(label),
    countIn: (part, whole, unit) => `${UNIT_KO[unit]} ${whole}번 중 ${part}번`,
    inRounds: ' (라운드 단위)',
    fresh: (fresh) =>
      `새 모듈 상태에서 (라운드 ${fresh.trials}개 각각의 첫 실행) ${fresh.trials}번 중 ${fresh.failures}번 실패했습니다${fresh.failure_rounds.length > 0 ? ` (라운드 ${fresh.failure_rounds.join(', ')})` : ''}: 실패율 ${pct(fresh.rate)}, 구간 [${pct(fresh.ci_low)}, ${pct(fresh.ci_high)}]. 보통의 실행에서 보게 될 실패율입니다.`,
  },
}

// --- internal ---

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`

const UNIT_KO: Record<CountUnit, string> = { rounds: '라운드', executions: '실행' }

type Side = ObserverFile['fast']

const CAUSES_KO: Record<Comparison['kind'], string> = {
  divergence: '프로세스나 머신 전체의 상태(임시 파일, 포트, 환경 변수, 전역 변수)를 통해 테스트끼리 얽혀 있습니다',
  load: '바쁜 머신에서 깨지는 타이밍 가정(타임아웃, 대기 시간, 이벤트 순서)이 있습니다',
  gap: '호출 사이의 타이밍에 달려 있습니다 (observer.json 참고)',
}

const SIDES_KO: Record<string, string> = {
  'parallel (as configured)': '병렬 (설정대로)',
  serial: '직렬',
  'under load': '부하 중',
  idle: '유휴',
  'fast (interleaved)': '빠르게 (교차)',
  fast: '빠르게',
}

function sideKo(label: string): string {
  const gapped = /^gapped (\d+) ms$/.exec(label)
  return gapped ? `간격 ${gapped[1]} ms` : (SIDES_KO[label] ?? label)
}

/** The observer's note (pipeline/observe.ts `explain`), from the same counts. */
function observerKo(o: { fast: Side; slow: Side; changed: boolean; p_value: number }): string {
  const { fast, slow } = o
  if (fast.trials === 0 || slow.trials === 0) return '관측한 것이 없습니다: 한쪽(또는 양쪽)에서 시도가 하나도 실행되지 않아 비교할 것이 없습니다.'
  const rates = `빠르게 ${pct(fast.rate)} (${fast.failures}/${fast.trials}, 간격 ${fast.gap_ms} ms), 느리게 ${pct(slow.rate)} (${slow.failures}/${slow.trials}, 간격 ${slow.gap_ms} ms), p = ${o.p_value.toPrecision(3)}`
  if (!o.changed && slow.failures === 0 && fast.failures > 0) {
    return `느린 실행에서는 실패가 없었지만, 느린 시도 ${slow.trials}번은 빠른 실패율과 구별하기에 너무 적습니다 (${rates}). 결론을 내리기 전에 느린 시도를 더 실행하세요.`
  }
  if (!o.changed) return `유의한 변화가 없습니다 (${rates}): 이 표본 크기에서는 느리게 실행해도 증상이 달라지지 않았습니다.`
  if (slow.rate < fast.rate) {
    return `느리게 실행하자 ${slow.failures === 0 ? '실패가 사라졌습니다' : '덜 실패했습니다'} (${rates}): 실패가 타이밍이나 순서에 달려 있습니다. 원인의 단서이지, 고친 것은 아닙니다.`
  }
  return `느리게 실행하자 더 실패했습니다 (${rates}): 호출 사이에 무언가가 만료되거나 시간 초과됩니다.`
}

/** The interleaved comparison (pipeline/test-bundle.ts `explainInterleaved`), from the same counts. */
function interleavedKo(fast: Side, paired: Side, slow: Side, pairedP: number | undefined, driftP: number | undefined, alpha: number): string {
  const counts = `교차한 빠른 실행 ${paired.failures}/${paired.trials}, 간격 ${slow.failures}/${slow.trials}${pairedP === undefined ? '' : `, p = ${pairedP.toPrecision(3)}`}`
  const gap = pairedP !== undefined && pairedP < alpha ? '간격 자체가 결과를 바꿉니다' : '이 횟수로는 차이를 찾지 못했습니다'
  const moved =
    driftP !== undefined && driftP < alpha
      ? ` 빠른 실패율 자체가 첫 구간(${fast.failures}/${fast.trials})과 교차한 반복 사이에서 달라졌습니다 (p = ${driftP.toPrecision(3)}): 간격보다 부하나 시간이 차이를 더 잘 설명합니다.`
      : ''
  return `시간 조건을 같게 두면 (${counts}): ${gap}.${moved}`
}
