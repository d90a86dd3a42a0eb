import type { OrderFinding } from './conditions-schema.js'
import { countOf, proofRunsText } from './counts-text.js'
import { culpritsText } from './culprit-text.js'
import { INDEPENDENCE_TEXT } from './independence-text.js'
import { WEAKNESS_TEXT } from './weakness-text.js'
import { REPORT_NOTES } from './report-notes.js'

/** What the markdown report says, in each language; the same keys in every one. */
const EN = {
  title: 'Flaky report',
  verdict: {
    stable: 'Stable.',
    flaky: 'Flaky.',
    broken: 'Broken (fails every time).',
    partial: 'Partial evidence.',
    'non-idempotent': 'Non-idempotent: its trials are not independent.',
    undetermined: 'Undetermined: its trials switched once, a shape chance makes too often to call either way.',
  },
  independence: INDEPENDENCE_TEXT.en,
  notes: REPORT_NOTES.en,
  /** A verdict in a table cell; English keeps the word rate.json uses. */
  verdictWord: (verdict: string): string => verdict,
  /** A count in words: "9 of 10", never "9/10" (counts-text.ts). */
  count: (part: number, whole: number): string => countOf(part, whole),
  signal: 'signal',
  roundConditions: {
    title: 'Which condition the failures follow',
    rounds: (counts: string, loadProcs: number | null) => `Rounds: ${counts}, alternating${loadProcs === null ? '' : `; ${loadProcs} spinning process(es) in load rounds`}.`,
    roundCount: (n: number, condition: string) => `${n} ${condition}`,
    seeds: (seeds: string) => `Seed of each round (replay one with \`--flaky-seed <seed>\`): ${seeds}.`,
    nothing: 'No test failed in any round: nothing to compare.',
    header: ['test', 'compared', 'a', 'b', 'p', 'tag'],
    kind: (kind: string): string => kind,
    tag: (tag: string): string => tag,
    order: (culprits: string, needs: boolean) => (needs ? `order: unless after ${culprits}` : `order: after ${culprits}`),
    culprits: (order: Pick<OrderFinding, 'culprit' | 'tied' | 'significant'>, code: (name: string) => string) => culpritsText(order, 'en', code),
    otherwise: 'otherwise',
  },
  nonIdempotent: 'non-idempotent',
  undetermined: 'undetermined',
  notObserved: 'Not observed: the trials are not independent (see above), so slowing them down would measure the state they leave, not their timing.',
  trialsFailed: (f: number, n: number) => `Failed ${f} of ${n} trials.`,
  howOften: 'How often',
  measured: (f: number, n: number, rate: string, low: string, high: string, c: number) =>
    `Failed **${f} of ${n}** trials: rate ${rate}, ${c * 100}% Wilson interval [${low}, ${high}].`,
  conditions: (gap: number, jobs: number, timedOut: number) =>
    `Rest before each trial: ${gap} ms; trials at once: ${jobs}${jobs > 1 ? ' (parallel trials change timing)' : ''}; timed out: ${timedOut}.`,
  incomplete: (n: number, requested: number) => `Interrupted: ${n} of ${requested} requested trials ran.`,
  onlyWhenFails: 'True only when it fails',
  exitCodes: (onFailure: string, onSuccess: string) => `Exit codes on failure: ${onFailure}; on success: ${onSuccess}.`,
  token: (token: string, f: number) => `Token \`${token}\`: in the stderr of all ${f} failures and in the output of no success.`,
  noToken: 'No token: no word is in the stderr of every failure and absent from every success.',
  failureTrials: (f: number, n: number) => `Failing trials (${f} of ${n})`,
  predicateHeader: ['Predicate (Liblit et al. 2005)', 'true in failures', 'true in successes', 'Increase', 'Importance', 'p (corrected)'],
  observation: 'What observation changed',
  observerHeader: ['Run', 'gap ms', 'failures/trials', 'rate', 'interval'],
  fast: 'fast',
  slow: 'slow (gapped)',
  fisher: (p: string, changed: boolean, alpha: number) =>
    `Fisher's exact test, two-sided: p = ${p}; ${changed ? `changed (p < ${alpha})` : `not changed (p >= ${alpha})`}.`,
  fixed: 'What it takes to say it is fixed',
  runsTable: (rate: string) => `Consecutive passes needed at rate ${rate} (confidence → runs)`,
  policy: (green: number, c: number, retry: number | null, quarantine: number | null) =>
    `Policy: ${green} green runs at confidence ${c}; retry budget ${retry ?? 'none (fails every time)'}; quarantine after ${quarantine ?? '–'} consecutive failure(s) with retries.`,
  proof: (cmd: string, n: number, required: number, f: number, passed: boolean) =>
    `Proof: \`${cmd}\` ran ${n} of ${required} required times with ${f} failure(s): **${passed ? 'PASSED' : 'FAILED'}**.`,
  residual: (high: string) => `A rate up to ${high} is still consistent with the proof runs (Wilson upper end).`,
  notMeasured: (how: string) => `Not measured yet (\`${how}\`).`,
  testTitle: 'Flaky report (tests)',
  rounds: (f: number, n: number, rate: string, low: string, high: string, uncounted = 0) =>
    `Failed **${f} of ${n}** rounds (a round fails if any test failed its repetition${uncounted > 0 ? `; the failures of ${uncounted} non-idempotent or undetermined test(s) are not counted: they follow the test's own repetitions` : ''}): rate ${rate}, interval [${low}, ${high}].`,
  testHeader: ['Test', 'failures/trials', 'rate', 'interval', 'verdict'],
  stableHidden: (n: number) => `${n} stable test(s) not listed (no failure).`,
  testsIncomplete: 'Incomplete: not every selected test ran all its repetitions (a worker ended, or the run was stopped), or Vitest reported errors outside any test; `partial` rows are evidence too thin to call.',
  runError: (where: string, error: string) => `Error outside any test in ${where}: ${error}`,
  times: (n: number) => ` (${n} times)`,
  nowhere: 'no file',
  noFlaky: 'No test failed.',
  testToken: (token: string | null) => (token === null ? 'no token' : `token \`${token}\``),
  failingRepetitions: 'failing repetitions',
  firstError: 'first error',
  topPredicate: 'strongest predicate',
  observerTestHeader: ['Test', 'fast', 'slow (gap)', 'p', 'changed'],
  yes: 'yes',
  no: 'no',
  fixTestHeader: ['Test', 'runs needed', 'retry budget', 'quarantine after', 'proof'],
  brokenRuns: 'none: it fails every time, fix it as a bug',
  proofCell: (n: number, required: number, f: number, passed: boolean) => `${proofRunsText(n, required)}, ${f} failed: ${passed ? 'PASSED' : 'FAILED'}`,
  proofStatus: { 'not-selected': 'not selected', missing: 'MISSING (test not found)' },
  proofOverall: (passed: boolean, n: number) => `Proof run: **${passed ? 'PASSED' : 'FAILED'}** (${n} test(s) proven).`,
  measuredUnder: (parts: string[]) => `Measured under ${parts.join(', ')}: a proof under less is weaker.`,
  stress: {
    load: (load: string, cpus: number, source: string) => `load ${load} per CPU (${cpus} CPU(s), ${source})`,
    workers: (n: number) => `${n} worker(s) at once`,
    concurrent: (n: number) => `${n} flakeproof run(s) of these files at once`,
    pool: (pool: string) => `pool ${pool}`,
    isolate: (on: boolean) => `isolation ${on ? 'on' : 'off'}`,
  },
  proofWeaker: (strict: boolean) =>
    `The proof ran under less stress than the measurement, so it releases no quarantine${strict ? ' and, being strict, FAILED' : ''}:`,
  weakness: WEAKNESS_TEXT.en,
}

const KO: Messages = {
  title: '간헐적 실패 보고서',
  verdict: {
    stable: '안정적입니다.',
    flaky: '간헐적으로 실패합니다.',
    broken: '매번 실패합니다.',
    partial: '증거가 부분적입니다.',
    'non-idempotent': '반복 실행에 의존합니다: 시도끼리 독립이 아닙니다.',
    undetermined: '판정 보류: 결과가 한 번 바뀌었지만, 우연으로도 자주 나오는 모양이라 어느 쪽으로도 판정할 수 없습니다.',
  },
  independence: INDEPENDENCE_TEXT.ko,
  notes: REPORT_NOTES.ko,
  verdictWord: (verdict) => KO_VERDICTS[verdict] ?? verdict,
  count: (part, whole) => `${whole}번 중 ${part}번`,
  signal: '시그널',
  roundConditions: {
    title: '실패가 따르는 조건',
    rounds: (counts, loadProcs) => `라운드: ${counts}, 번갈아 실행${loadProcs === null ? '' : `; 부하 라운드에서는 바쁘게 도는 프로세스 ${loadProcs}개`}.`,
    roundCount: (n, condition) => `${KO_CONDITIONS[condition] ?? condition} ${n}번`,
    seeds: (seeds) => `라운드별 시드 (\`--flaky-seed <seed>\`로 재현): ${seeds}.`,
    nothing: '어느 라운드에서도 실패한 테스트가 없어 비교할 것이 없습니다.',
    header: ['테스트', '비교', 'a', 'b', 'p', '태그'],
    kind: (kind) => ({ divergence: '병렬 대 직렬', load: '부하 대 유휴', gap: '빠르게 대 간격' })[kind] ?? kind,
    tag: (tag) => ({ 'parallel-only': '병렬에서만', 'load-only': '부하에서만', 'order-dependent': '순서 의존' })[tag] ?? tag,
    order: (culprits, needs) => (needs ? `순서: ${culprits} 다음이 아닐 때` : `순서: ${culprits} 다음`),
    culprits: (order, code) => culpritsText(order, 'ko', code),
    otherwise: '그 밖에는',
  },
  nonIdempotent: '반복 의존',
  undetermined: '판정 보류',
  notObserved: '관측하지 않았습니다: 시도끼리 독립이 아니므로 (위 참고), 느리게 실행해도 타이밍이 아니라 남은 상태를 측정하게 됩니다.',
  trialsFailed: (f: number, n: number) => `${n}번 중 ${f}번 실패했습니다.`,
  howOften: '얼마나 자주인가',
  measured: (f: number, n: number, rate: string, low: string, high: string, c: number) =>
    `**${n}번 중 ${f}번** 실패: 실패율 ${rate}, ${c * 100}% Wilson 구간 [${low}, ${high}].`,
  conditions: (gap: number, jobs: number, timedOut: number) =>
    `시도 전 휴식: ${gap} ms; 동시 실행: ${jobs}${jobs > 1 ? ' (병렬 실행은 타이밍을 바꿉니다)' : ''}; 시간 초과: ${timedOut}.`,
  incomplete: (n: number, requested: number) => `중단됨: 요청한 ${requested}번 중 ${n}번만 실행했습니다.`,
  onlyWhenFails: '실패할 때만 참인 것',
  exitCodes: (onFailure: string, onSuccess: string) => `실패 시 종료 코드: ${onFailure}; 성공 시: ${onSuccess}.`,
  token: (token: string, f: number) => `토큰 \`${token}\`: 실패 ${f}번 모두의 표준 오류에 있고, 어떤 성공의 출력에도 없습니다.`,
  noToken: '토큰 없음: 모든 실패의 표준 오류에 있으면서 성공에는 없는 단어가 없습니다.',
  failureTrials: (f: number, n: number) => `실패한 시도 (${n}번 중 ${f}번)`,
  predicateHeader: ['술어 (Liblit et al. 2005)', '실패에서 참', '성공에서 참', '증가량', '중요도', 'p (보정)'],
  observation: '관측이 바꾼 것',
  observerHeader: ['실행', '간격 ms', '실패/시도', '실패율', '구간'],
  fast: '빠르게',
  slow: '느리게 (간격)',
  fisher: (p: string, changed: boolean, alpha: number) =>
    `Fisher 정확 검정 (양측): p = ${p}; ${changed ? `달라짐 (p < ${alpha})` : `달라지지 않음 (p >= ${alpha})`}.`,
  fixed: '고쳤다고 말하려면',
  runsTable: (rate: string) => `실패율 ${rate}에서 필요한 연속 통과 횟수 (신뢰수준 → 횟수)`,
  policy: (green: number, c: number, retry: number | null, quarantine: number | null) =>
    `정책: 신뢰수준 ${c}에서 연속 통과 ${green}번; 재시도 예산 ${retry ?? '없음 (매번 실패)'}; 재시도 후에도 ${quarantine ?? '–'}번 연속 실패하면 격리.`,
  proof: (cmd: string, n: number, required: number, f: number, passed: boolean) =>
    `증명: \`${cmd}\`를 필요한 ${required}번 중 ${n}번 실행, 실패 ${f}번: **${passed ? '통과' : '실패'}**.`,
  residual: (high: string) => `증명 실행과 모순되지 않는 실패율의 상한: ${high} (Wilson 상한).`,
  notMeasured: (how: string) => `아직 측정하지 않았습니다 (\`${how}\`).`,
  testTitle: '간헐적 실패 보고서 (테스트)',
  rounds: (f: number, n: number, rate: string, low: string, high: string, uncounted = 0) =>
    `**${n}번의 라운드 중 ${f}번** 실패 (한 테스트라도 실패하면 그 라운드는 실패${uncounted > 0 ? `; 반복 의존이거나 판정 보류인 테스트 ${uncounted}개의 실패는 세지 않습니다: 그 테스트 자신의 반복을 따르기 때문입니다` : ''}): 실패율 ${rate}, 구간 [${low}, ${high}].`,
  testHeader: ['테스트', '실패/시도', '실패율', '구간', '판정'],
  stableHidden: (n: number) => `안정적인 테스트 ${n}개는 생략했습니다 (실패 없음).`,
  testsIncomplete: '불완전함: 선택된 테스트 중 일부가 반복을 다 마치지 못했거나(워커 종료 또는 실행 중단), Vitest가 테스트 밖의 오류를 보고했습니다. `partial` 행은 판단하기에 증거가 부족합니다.',
  runError: (where: string, error: string) => `${where}의 테스트 밖 오류: ${error}`,
  times: (n: number) => ` (${n}회)`,
  nowhere: '파일 없음',
  noFlaky: '실패한 테스트가 없습니다.',
  testToken: (token: string | null) => (token === null ? '토큰 없음' : `토큰 \`${token}\``),
  failingRepetitions: '실패한 반복',
  firstError: '첫 오류',
  topPredicate: '가장 강한 술어',
  observerTestHeader: ['테스트', '빠르게', '느리게 (간격)', 'p', '달라짐'],
  yes: '예',
  no: '아니오',
  fixTestHeader: ['테스트', '필요한 횟수', '재시도 예산', '격리 기준', '증명'],
  brokenRuns: '없음: 매번 실패하므로 버그로 고치세요',
  proofCell: (n: number, required: number, f: number, passed: boolean) => `${required}번 중 ${n}번 실행, 실패 ${f}번: ${passed ? '통과' : '실패'}`,
  proofStatus: { 'not-selected': '선택되지 않음', missing: '없음 (테스트를 찾을 수 없음)' },
  proofOverall: (passed: boolean, n: number) => `증명 실행: **${passed ? '통과' : '실패'}** (테스트 ${n}개 증명).`,
  measuredUnder: (parts: string[]) => `측정 조건: ${parts.join(', ')}. 이보다 약한 조건의 증명은 약한 증명입니다.`,
  stress: {
    load: (load: string, cpus: number, source: string) => `CPU당 부하 ${load} (CPU ${cpus}개, ${source})`,
    workers: (n: number) => `동시 워커 ${n}개`,
    concurrent: (n: number) => `같은 파일을 동시에 실행한 flakeproof ${n}개`,
    pool: (pool: string) => `풀 ${pool}`,
    isolate: (on: boolean) => `격리 ${on ? '켜짐' : '꺼짐'}`,
  },
  proofWeaker: (strict: boolean) => `증명이 측정보다 약한 조건에서 실행되어 격리를 해제하지 않습니다${strict ? '. 엄격 모드이므로 **실패**입니다' : ''}:`,
  weakness: WEAKNESS_TEXT.ko,
}

const KO_VERDICTS: Record<string, string> = { 'order-dependent': '순서 의존', flaky: '간헐적 실패', broken: '항상 실패', 'non-idempotent': '반복 의존', partial: '증거 부족', stable: '안정', undetermined: '판정 보류' }
const KO_CONDITIONS: Record<string, string> = { base: '기본', serial: '직렬', load: '부하' }

export type Messages = typeof EN

export const MESSAGES = { en: EN, ko: KO }
