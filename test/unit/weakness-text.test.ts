import { describe, expect, it } from 'vitest'
import type { Weakness } from '../../src/artifacts/conditions-schema.js'
import { loadFlagOf, WEAKNESS_TEXT } from '../../src/artifacts/weakness-text.js'

const ran = { cpus: 2, spinning: 0 }
const w = (condition: Weakness['condition'], measured: Weakness['measured'], proof: Weakness['proof']): Weakness => ({ condition, measured, proof, note: '' })

describe('a weaker proof in each report language (docs/contracts.md §13.5)', () => {
  it('where Jest ran the proof in band: how to keep its workers', () => {
    const inBand = { cpus: 2, spinning: 0, workers: 1, pool: 'in-band' }
    const flag = loadFlagOf(false)
    expect(WEAKNESS_TEXT.ko(w('workers', 2, 1), inBand, flag)).toBe(
      '동시 워커 1개, 측정 때 2개: 같은 수의 파일을 동시에 실행하세요 (선택 전체, 워커 2개 이상); Jest가 자신의 프로세스에서 실행했습니다 (파일 하나, 워커 하나, 또는 캐시가 빠르다고 기록한 파일): 워커를 유지하는 --workerIdleMemoryLimit=1GB와 --maxWorkers=2를 추가하세요',
    )
    expect(WEAKNESS_TEXT.ko(w('pool', 'workers', 'in-band'), inBand, flag)).toBe(
      '풀 in-band, 측정 때 풀 workers; Jest가 자신의 프로세스에서 실행했습니다 (파일 하나, 워커 하나, 또는 캐시가 빠르다고 기록한 파일): 워커를 유지하는 --workerIdleMemoryLimit=1GB와 측정 때와 같은 --maxWorkers를 추가하세요',
    )
    expect(WEAKNESS_TEXT.en(w('pool', 'workers', 'in-band'), inBand, flag)).toContain('add --workerIdleMemoryLimit=1GB, which keeps its workers')
  })

  it.each([
    // (2.40 − 0.30) × 2 CPUs = 4.2 → 5 spinning processes.
    [w('load_per_cpu', 2.4, 0.3), false, 'load 0.30 per CPU, 2.40 when measured: add --flaky-load-procs 5 (5 spinning process(es) on 2 CPU(s))', 'CPU당 부하 0.30, 측정 때 2.40: --flaky-load-procs 5를 추가하세요 (CPU 2개에 회전하는 프로세스 5개)'],
    [w('load_per_cpu', 2.4, 0.3), true, 'load 0.30 per CPU, 2.40 when measured: add --load-procs 5 (5 spinning process(es) on 2 CPU(s))', 'CPU당 부하 0.30, 측정 때 2.40: --load-procs 5를 추가하세요 (CPU 2개에 회전하는 프로세스 5개)'],
    [w('workers', 3, 1), false, '1 worker(s) at once, 3 when measured: run as many files at once (the whole selection, and at least 3 workers)', '동시 워커 1개, 측정 때 3개: 같은 수의 파일을 동시에 실행하세요 (선택 전체, 워커 3개 이상)'],
    [w('concurrent_runs', 2, 1), false, '1 flakeproof run(s) of these files at once, 2 when measured: start 2 at once, as the measurement did', '같은 파일의 flakeproof 동시 실행 1개, 측정 때 2개: 측정 때처럼 2개를 동시에 시작하세요'],
    [w('pool', 'forks', 'threads'), false, 'pool threads, measured in pool forks: run it in forks (--pool forks)', '풀 threads, 측정 때 풀 forks: forks에서 실행하세요 (--pool forks)'],
    [w('isolate', true, false), false, 'isolation off, measured with it on: run it as measured', '격리 꺼짐, 측정 때 켜짐: 측정 때처럼 실행하세요'],
  ])('%o (command mode %s)', (weakness, commandMode, en, ko) => {
    expect(WEAKNESS_TEXT.en(weakness, ran, loadFlagOf(commandMode))).toBe(en)
    expect(WEAKNESS_TEXT.ko(weakness, ran, loadFlagOf(commandMode))).toBe(ko)
  })
})
