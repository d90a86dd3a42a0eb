import { describeWeakness, JEST_IN_BAND, loadProcsToMatch, VITEST_POOLS } from '../core/proof-strength.js'
import type { RunStress, Weakness } from './conditions-schema.js'

/** Spells the option that spins processes for a whole run: `--flaky-load-procs 6` in test mode, `--load-procs 6` for a command. */
export type LoadFlag = (procs: number) => string

/** The load flag of a report's kind of run: command mode's `proof --load-procs`, a test runner's `--flaky-load-procs`. */
export function loadFlagOf(commandMode: boolean): LoadFlag {
  return (procs) => (commandMode ? `--load-procs ${procs}` : `--flaky-load-procs ${procs}`)
}

/** How to keep Jest's workers (src/core/proof-strength.ts, in Korean). */
const jestWorkersKo = (workers?: unknown): string =>
  `; Jest가 자신의 프로세스에서 실행했습니다 (파일 하나, 워커 하나, 또는 캐시가 빠르다고 기록한 파일): 워커를 유지하는 --workerIdleMemoryLimit=1GB와 ${workers === undefined ? '측정 때와 같은 --maxWorkers' : `--maxWorkers=${workers}`}를 추가하세요`

const onOff = (value: unknown, on: string, off: string): string => (value === true ? on : off)

/**
 * How a proof was easier than its measurement, and how to match it, in each report language
 * (docs/contracts.md §13.5): rebuilt from proof.json's values, so a Korean report says it in Korean.
 */
export const WEAKNESS_TEXT = {
  en: (w: Weakness, ran: RunStress, flag: LoadFlag): string => describeWeakness(w, ran, flag),
  ko: (w: Weakness, ran: RunStress, flag: LoadFlag): string => {
    const { measured, proof } = w
    switch (w.condition) {
      case 'workers':
        return `동시 워커 ${proof}개, 측정 때 ${measured}개: 같은 수의 파일을 동시에 실행하세요 (선택 전체, 워커 ${measured}개 이상)${ran.pool === JEST_IN_BAND ? jestWorkersKo(measured) : ''}`
      case 'concurrent_runs':
        return `같은 파일의 flakeproof 동시 실행 ${proof}개, 측정 때 ${measured}개: 측정 때처럼 ${measured}개를 동시에 시작하세요`
      case 'pool':
        if (proof === JEST_IN_BAND && measured === 'workers') return `풀 in-band, 측정 때 풀 workers${jestWorkersKo()}`
        return `풀 ${proof}, 측정 때 풀 ${measured}: ${measured}에서 실행하세요${VITEST_POOLS.has(String(measured)) ? ` (--pool ${measured})` : ''}`
      case 'isolate':
        return `격리 ${onOff(proof, '켜짐', '꺼짐')}, 측정 때 ${onOff(measured, '켜짐', '꺼짐')}: 측정 때처럼 실행하세요`
      case 'load_per_cpu': {
        const cpus = ran.cpus ?? 1
        const procs = loadProcsToMatch(Number(measured), Number(proof), cpus, ran.spinning ?? 0)
        return `CPU당 부하 ${Number(proof).toFixed(2)}, 측정 때 ${Number(measured).toFixed(2)}: ${flag(procs)}를 추가하세요 (CPU ${cpus}개에 회전하는 프로세스 ${procs}개)`
      }
    }
  },
}
