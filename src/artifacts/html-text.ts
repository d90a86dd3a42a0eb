import { countOf, proofRunsText } from './counts-text.js'
import { INDEPENDENCE_TEXT } from './independence-text.js'
import { REPORT_NOTES } from './report-notes.js'
import { WEAKNESS_TEXT } from './weakness-text.js'

/**
 * Every word report.html shows, in each language: the same keys in every one (KO is typed from EN).
 * Values are HTML: literal text here holds no `<` or `&` other than the markup it means, and every
 * argument is markup the caller already escaped (an id, a number, a link).
 */
const EN = {
  lang: 'en',
  independence: INDEPENDENCE_TEXT.en,
  notes: REPORT_NOTES.en,
  title: (command: string) => `flakeproof report: ${command}`,
  h1Tests: 'Flaky tests',
  h1Command: 'Flaky command',
  started: (at: string, duration: string) => `started ${at} · ${duration}`,
  // Headline
  headline: 'Headline',
  verdictsLabel: 'verdicts',
  failedOf: (failures: string, trials: string, testMode: boolean, rate: string, confidence: string, low: string, high: string, uncounted: number) =>
    `Failed ${failures} of ${trials} ${testMode ? `rounds (a round fails if any test failed its repetition${uncounted > 0 ? `; the failures of ${uncounted} non-idempotent or undetermined test(s) are not counted: they follow the test's own repetitions` : ''})` : 'trials'}: rate ${rate}, ${confidence}% interval [${low}, ${high}].`,
  /** A count in words: "9 of 10", never "9/10" (counts-text.ts). */
  count: (part: number, whole: number) => countOf(part, whole),
  complete: (testMode: boolean, requested: number) => (testMode ? 'Complete: every selected test ran every repetition.' : `Complete: every requested trial ran (${requested}).`),
  incomplete: (testMode: boolean, trials: number, requested: number) =>
    `<b>Incomplete</b>: ${testMode ? 'not every selected test ran all its repetitions, or Vitest reported errors outside any test' : `${trials} of ${requested} requested trials ran`}; partial evidence is never called stable or broken.`,
  runErrors: (n: number) => `<b>${n} error(s) outside any test</b>:`,
  noFile: 'no file',
  times: (n: number) => ` (${n} times)`,
  moreInRate: (n: number) => `${n} more in <code>rate.json</code>.`,
  // Toolbar (shown by the script only)
  toolbar: 'Find tests',
  search: 'Search',
  searchPlaceholder: 'name or file',
  verdictFilter: 'Verdict',
  allVerdicts: 'all',
  sort: 'Sort the table',
  sorts: { concern: 'surest failure first', rate: 'highest rate first', failures: 'most failures first', name: 'by name' },
  /** Filled by the script: {shown} and {total} are replaced. */
  shownTemplate: '{shown} of {total} shown',
  // Rate table
  ratesTitle: 'Which fail, and how sure that is',
  ratesNote:
    'Dot: the measured rate. Whisker: its Wilson interval, where the true rate lies at the stated confidence. One axis for every row; sorted by the lower end, so the surest failures come first.',
  nothingFailed: (stable: number) => `Nothing failed${stable > 0 ? ` (${stable} stable)` : ''}.`,
  ratesCaption: (notStable: number, stable: number, rows: number, more: number) =>
    `${notStable} ${notStable === 1 ? 'subject' : 'subjects'} not stable${stable > 0 ? `; ${stable} stable listed below` : ''}${more > 0 ? `; the first ${rows} shown, ${more} more in <code>rate.json</code>` : ''}.`,
  columns: { command: 'Command', test: 'Test', failed: 'failed', rate: 'rate', interval: (confidence: string) => `${confidence}% interval`, verdict: 'verdict' },
  verdicts: {
    flaky: 'flaky',
    broken: 'broken',
    'non-idempotent': 'non-idempotent',
    partial: 'partial',
    stable: 'stable',
    undetermined: 'undetermined',
  } as Record<string, string>,
  tags: { 'order-dependent': 'order-dependent', 'parallel-only': 'parallel only', 'load-only': 'under load only' } as Record<string, string>,
  // Sections of tests
  sections: {
    flaky: {
      title: 'Flaky tests',
      about: 'Failed some repetitions and passed others, in an order chance explains: the rate is a chance of failing.',
    },
    'non-idempotent': {
      title: 'Non-idempotent tests',
      about: 'Passed, then failed every later repetition (or the reverse): what one repetition leaves decides the next, so the rate is no chance of failing. Measure their rate in ordinary runs of their file instead.',
    },
    'order-dependent': {
      title: 'Order-dependent tests',
      about: "Fail when another test of the same file runs before them in the same worker, or unless it does (rounds in shuffled order, Fisher's exact test).",
    },
    undetermined: {
      title: 'Undetermined',
      about: 'The evidence does not decide the verdict; <code>rate.json</code> holds what was measured.',
    },
    broken: {
      title: 'Broken tests',
      about: 'Failed every repetition: a deterministic failure, not a flake. Fix it; no retry helps. One that passes when its file runs as usual was broken by the repetitions, with state they leave.',
    },
    partial: {
      title: 'Partial evidence',
      about: 'Did not run every repetition (a worker ended, the run was stopped): too little to call either way.',
    },
  } as Record<string, { title: string; about: string }>,
  otherVerdict: (verdict: string) => ({
    title: `Verdict <code>${verdict}</code>`,
    about: `This page does not describe the verdict <code>${verdict}</code>; <code>rate.json</code> holds its numbers.`,
  }),
  everyTrial: 'Every trial',
  stableTitle: 'Stable tests',
  stableSummary: (n: number) => `${n} stable ${n === 1 ? 'test' : 'tests'} (no failure)`,
  noStable: 'No test passed every repetition.',
  notDrawn: (n: number, max: number) => `${n} more not drawn in detail (the page draws ${max} tests); their numbers and first error:`,
  firstErrorColumn: 'first error',
  // One test
  stripNote:
    'Strip: one mark per execution, left to right in rows of 100; a tall red mark failed (click it for that repetition), a short one passed' +
    '<span class="key pass"></span>fast<span class="key slow"></span>gapped<span class="key proof"></span>proof<span class="key fail"></span>failed. ' +
    "Bursts, a regular period or failures only at the start show as shapes. Durations: each dot one execution, the bar its row's mean.",
  modes: { fast: 'fast (no gap)', single: 'single run', slow: 'gapped', paired: 'fast, between gapped ones', proof: 'proof' } as Record<string, string>,
  modeShort: { fast: 'fast', single: 'single', slow: 'gapped', paired: 'fast (paired)', proof: 'proof' } as Record<string, string>,
  stripCaption: (mode: string, modeName: string, failures: number, executions: number) => `${modeName}: <span data-strip="${mode}">${failures} of ${executions}</span> failed`,
  binned: (binSize: number, marks: number) => `; ${binSize} executions per mark (more than ${marks}), red if any of them failed`,
  noFacts: 'No <code>facts.jsonl</code> for this run: no per-execution strip.',
  declaredAt: 'declared at',
  linkTitle: (file: string) => `opens ${file} (a browser opens the file, it cannot jump to the line)`,
  token: 'token',
  tokenNone: 'none (no word is in every failure and in no success)',
  notAnalysed: 'not analysed',
  firstError: 'first error',
  predicatesCaption: 'Strongest predicates (Liblit et al. 2005)',
  predicateColumns: ['predicate', 'true in failures', 'true in successes', 'Increase', 'Importance', 'p (corrected)'],
  compareCaption: (fast: string, slow: string, p: string, changed: boolean) => `Fast ${fast} vs gapped ${slow}: Fisher's exact p = ${p}, ${changed ? '<b>changed</b>' : 'not changed'}.`,
  durationsCaption: (passed: number, passedMean: string, passedRange: string, failed: number, failedMean: string, failedRange: string) =>
    `Durations: passed (${passed}) mean ${passedMean} (${passedRange}), failed (${failed}) mean ${failedMean} (${failedRange})`,
  thinned: (points: number, stride: number) => `; above ${points} executions per row only every ${stride}th (or fewer) is drawn, the mean and range are of all`,
  // Failing repetitions
  failingTitle: (proof: boolean): string => (proof ? 'Failing proof runs' : 'Failing repetitions'),
  failingCount: (shown: number, total: number, file: string) =>
    shown === total ? `${total}, each in full: click one to open it.` : `The first ${shown} of ${total} in full (click one to open it); the other ${total - shown} are in <code>${file}</code>.`,
  noFailingDetail: (file: string) => `Their details are not in this folder (no <code>${file}</code>).`,
  repetition: (trial: number) => `#${trial}`,
  worker: (w: string) => `worker ${w}`,
  order: (n: number) => `order ${n}`,
  round: (n: number) => `round ${n}`,
  exitCode: (code: string) => `exit code ${code}`,
  signal: (s: string) => `signal ${s}`,
  timedOut: 'timed out',
  errorLabel: 'error',
  stackLabel: 'stack',
  attachmentsLabel: 'attachments',
  stdoutLabel: 'stdout',
  stderrLabel: 'stderr',
  outputLabel: 'output',
  whereLabel: 'where',
  ranAfter: 'ran after',
  readFrom: 'read from',
  repeatIndex: 'repetition index',
  none: 'none',
  markPassed: (which: string) => `${which} passed`,
  markFailed: (which: string, detail: string) => `${which} failed${detail}`,
  markBin: (which: string, failures: number, count: number) => `${which}: ${failures} of ${count} failed`,
  markNotInFull: ' (not in full on this page: see facts.jsonl)',
  // Conditions and order
  orderTitle: 'order',
  orderFound: (culprit: string, after: string, otherwise: string, p: string) =>
    `Fails when ${culprit} runs before it: failed in ${after} after it, ${otherwise} otherwise (Fisher's exact p = ${p}, corrected for the tests that could have run before it).`,
  orderNeeded: (culprit: string, after: string, otherwise: string, p: string) =>
    `Fails unless ${culprit} runs before it: failed in ${after} after it, ${otherwise} otherwise (Fisher's exact p = ${p}, corrected for the tests that could have run before it). It needs state the test before it leaves: set it up in this test or its hooks.`,
  orderNotFound: (culprit: string, after: string, otherwise: string, p: string) => `No order dependence found with these counts (closest: ${culprit}: failed in ${after} after it, ${otherwise} otherwise, p = ${p}).`,
  orderTied: (why: string) => (why === '' ? '' : ` ${why.charAt(0).toUpperCase()}${why.slice(1)}.`),
  replay: (failing: string, passing: string) => `${failing ? ` Replay a failing order with ${failing}` : ''}${passing ? `${failing ? ';' : ''} a passing one: ${passing}` : ''}${failing || passing ? '.' : ''}`,
  conditionsCaption: "Conditions the rounds varied (Fisher's exact test)",
  conditionColumns: ['compared', 'suspected', 'against', 'p', 'tag'],
  comparisonKinds: { divergence: 'parallel vs serial', load: 'under load vs idle', gap: 'fast vs gapped' } as Record<string, string>,
  // Observer
  observerTitle: 'Did slowing down change it?',
  notObservedNonIdempotent: 'Not observed: the trials may not be independent, so a gapped run would measure the state they leave, not their timing.',
  notObservedFile: 'Not observed: no <code>observer.json</code> in this folder.',
  noneObserved: 'No test was observed.',
  observerCommandCaption: (fast: string, slow: string, gap: number) => `Fast ${fast} vs gapped (${gap} ms) ${slow}.`,
  fisherLine: (p: string, changed: boolean, alpha: number) => `Fisher's exact test, two-sided: p = ${p}; ${changed ? `<b>changed</b> (p &lt; ${alpha})` : `not changed (p ≥ ${alpha})`}.`,
  observerCaption: (alpha: number, shown: number, total: number) =>
    `Fisher's exact test, two-sided; changed when p &lt; ${alpha}${total > shown ? `; first ${shown} of ${total}` : ''}. Each test's plot is in its section above.`,
  observerColumns: { test: 'Test', fast: 'fast', gapped: 'gapped', p: 'p', result: 'result' },
  changed: 'changed',
  notChanged: 'not changed',
  compareLabel: { fast: 'fast', gap: (ms: number) => `gap ${ms} ms` },
  // What it takes
  fixedTitle: 'What it takes to say it is fixed',
  proofLine: (command: string, trials: number, required: number, failures: number, passed: boolean, residual: string | null) =>
    `Proof: ${command} ran <b>${trials}</b> of ${required} required times with <b>${failures}</b> failure(s): <b>${passed ? 'PASSED' : 'FAILED'}</b>.${residual === null ? '' : ` A rate up to ${residual} is still consistent with it (Wilson upper end).`}`,
  noProof: 'No proof run yet.',
  proofWeaker: (strict: boolean) => `The proof ran under less stress than the measurement, so it releases no quarantine${strict ? ' and, being strict, <b>FAILED</b>' : ''}:`,
  weakness: WEAKNESS_TEXT.en,
  planCaption: (rate: string, basis: string) => `Consecutive passes needed at rate ${rate} (${basis})`,
  /** runs_needed.json `basis`; English keeps the word the file uses. */
  basis: { observed: 'observed', ci_high: 'ci_high', ci_low: 'ci_low' } as Record<string, string>,
  planColumns: { confidence: 'confidence', runs: 'runs' },
  notPlanned: 'Not planned yet (no <code>runs_needed.json</code>).',
  greenRuns: 'green runs required',
  greenRunsValue: (runs: number, confidence: number) => `${runs} (confidence ${confidence})`,
  retryBudget: 'retry budget',
  retryNone: 'none: it fails every time',
  quarantineAfter: 'quarantine after',
  quarantineValue: (n: string) => `${n} consecutive failure(s) with retries`,
  nothingToPlan: 'Nothing failed: nothing to plan.',
  policyCaption: (confidence: number | null) => `Policy per test${confidence === null ? ' (no <code>policy.json</code> yet)' : ` at confidence ${confidence}`}`,
  policyColumns: { test: 'Test', runs: 'green runs required', retry: 'retry budget', quarantine: 'quarantine after', proof: 'proof' },
  noNumberShort: 'no number: not independent',
  noNumberUndetermined: 'no number: undetermined',
  proofCell: (trials: number, required: number, failures: number, passed: boolean) => `${proofRunsText(trials, required)}, ${failures} failed: ${passed ? 'PASSED' : 'FAILED'}`,
  proofStatus: { 'not-selected': 'not selected', missing: 'missing (test not found)' } as Record<string, string>,
  // About
  aboutTitle: 'About this page',
  about: (rows: number, detailed: number, marks: number, points: number, failing: number, stable: number) =>
    'Made by flakeproof from the files beside it (<code>rate.json</code>, <code>facts.jsonl</code> and the others), like <code>flaky_report.md</code>. ' +
    'It makes no request; its one small script (search, filter, sort, opening a repetition) is optional: without it the page reads the same, printed or offline. ' +
    `To stay small for any run it lists at most ${rows} subjects per table and ${stable} stable tests, draws at most ${detailed} tests in detail, at most ${marks} marks per strip (more executions share a mark, as said under the strip), ` +
    `at most ${points} duration points per row (every k-th execution, as said under the plot) and the first ${failing} failing repetitions of each drawn test in full (their texts cut to a few thousand characters, head and tail kept). The JSON files hold every number.`,
  unreadable: (n: number) => `${n} line(s) of <code>facts.jsonl</code> were not readable facts and were skipped.`,
  testsMeasured: (n: number) => `${n} test(s) measured.`,
  plot: {
    rate: (x: string) => `rate ${x}`,
    interval: (low: string, high: string) => `interval ${low} – ${high}`,
    axis: (max: string) => `failure rate, 0% to ${max}`,
    strip: (label: string, executions: number, failures: number, binSize: number) => `${label}: ${executions} executions, ${failures} failed${binSize > 1 ? `, ${binSize} per mark` : ''}`,
    compare: (label: string, fast: string, slow: string) => `${label}: fast ${fast}, gapped ${slow}`,
    passed: 'passed',
    failed: 'failed',
    mean: (name: string, v: string) => `${name}: mean ${v}`,
    durations: (label: string, passed: number, passedMean: string, failed: number, failedMean: string) => `${label}: passed ${passed}, mean ${passedMean}; failed ${failed}, mean ${failedMean}`,
  },
}

export type HtmlText = typeof EN

const KO: HtmlText = {
  lang: 'ko',
  independence: INDEPENDENCE_TEXT.ko,
  notes: REPORT_NOTES.ko,
  title: (command) => `flakeproof 보고서: ${command}`,
  h1Tests: '간헐적으로 실패하는 테스트',
  h1Command: '간헐적으로 실패하는 명령',
  started: (at, duration) => `시작 ${at} · ${duration}`,
  headline: '요약',
  verdictsLabel: '판정',
  count: (part, whole) => `${whole}번 중 ${part}번`,
  failedOf: (failures, trials, testMode, rate, confidence, low, high, uncounted) =>
    `${testMode ? `라운드 ${trials}번 중 ${failures}번 실패 (한 테스트라도 실패하면 그 라운드는 실패${uncounted > 0 ? `; 반복 의존이거나 판정 보류인 테스트 ${uncounted}개의 실패는 세지 않습니다: 그 실패는 테스트 자신의 반복을 따릅니다` : ''})` : `시도 ${trials}번 중 ${failures}번 실패`}: 실패율 ${rate}, ${confidence}% 구간 [${low}, ${high}].`,
  complete: (testMode, requested) => (testMode ? '완전함: 선택된 모든 테스트가 모든 반복을 실행했습니다.' : `완전함: 요청한 시도를 모두 실행했습니다 (${requested}번).`),
  incomplete: (testMode, trials, requested) =>
    `<b>불완전함</b>: ${testMode ? '선택된 테스트 중 일부가 반복을 다 마치지 못했거나, Vitest가 테스트 밖의 오류를 보고했습니다' : `요청한 ${requested}번 중 ${trials}번만 실행했습니다`}. 부분적인 증거로는 안정적이라고도, 항상 실패한다고도 판정하지 않습니다.`,
  runErrors: (n) => `<b>테스트 밖의 오류 ${n}개</b>:`,
  noFile: '파일 없음',
  times: (n) => ` (${n}회)`,
  moreInRate: (n) => `나머지 ${n}개는 <code>rate.json</code>에 있습니다.`,
  toolbar: '테스트 찾기',
  search: '검색',
  searchPlaceholder: '이름 또는 파일',
  verdictFilter: '판정',
  allVerdicts: '전체',
  sort: '표 정렬',
  sorts: { concern: '확실한 실패부터', rate: '높은 실패율부터', failures: '많이 실패한 순', name: '이름순' },
  shownTemplate: '{total}개 중 {shown}개 표시',
  ratesTitle: '무엇이 실패하고, 얼마나 확실한가',
  ratesNote:
    '점: 측정한 실패율. 수염: Wilson 구간으로, 주어진 신뢰수준에서 참 실패율이 놓이는 범위입니다. 모든 행이 같은 축을 쓰며, 구간 하한 순으로 정렬해 가장 확실한 실패가 먼저 나옵니다.',
  nothingFailed: (stable) => `실패한 것이 없습니다${stable > 0 ? ` (안정적 ${stable}개)` : ''}.`,
  ratesCaption: (notStable, stable, rows, more) =>
    `안정적이지 않은 대상 ${notStable}개${stable > 0 ? `; 안정적인 ${stable}개는 아래에 있습니다` : ''}${more > 0 ? `; 처음 ${rows}개만 표시하며 나머지 ${more}개는 <code>rate.json</code>에 있습니다` : ''}.`,
  columns: { command: '명령', test: '테스트', failed: '실패', rate: '실패율', interval: (confidence) => `${confidence}% 구간`, verdict: '판정' },
  verdicts: {
    flaky: '간헐적 실패',
    broken: '항상 실패',
    'non-idempotent': '반복 의존',
    partial: '증거 부족',
    stable: '안정',
    undetermined: '판정 보류',
  },
  tags: { 'order-dependent': '순서 의존', 'parallel-only': '병렬에서만', 'load-only': '부하에서만' },
  sections: {
    flaky: {
      title: '간헐적으로 실패하는 테스트',
      about: '일부 반복에서 실패하고 나머지는 통과했으며, 그 순서는 우연으로 설명됩니다: 실패율이 곧 실패할 확률입니다.',
    },
    'non-idempotent': {
      title: '반복 실행에 의존하는 테스트',
      about: '통과하다가 이후 모든 반복에서 실패했습니다 (또는 그 반대): 한 반복이 남긴 것이 다음 반복을 결정하므로, 실패율은 실패할 확률이 아닙니다. 대신 파일의 평소 실행에서 실패율을 측정하세요.',
    },
    'order-dependent': {
      title: '실행 순서에 의존하는 테스트',
      about: '같은 파일의 다른 테스트가 같은 워커에서 먼저 실행되면, 또는 먼저 실행되지 않으면 실패합니다 (순서를 섞은 라운드, Fisher 정확 검정).',
    },
    undetermined: {
      title: '판정 보류',
      about: '증거만으로는 판정을 내릴 수 없습니다. 측정한 내용은 <code>rate.json</code>에 있습니다.',
    },
    broken: {
      title: '매번 실패하는 테스트',
      about: '모든 반복에서 실패했습니다: 간헐적 실패가 아니라 결정적인 실패입니다. 고치세요. 재시도로는 해결되지 않습니다.',
    },
    partial: {
      title: '증거가 부족한 테스트',
      about: '모든 반복을 실행하지 못했습니다 (워커 종료, 실행 중단): 어느 쪽으로도 판정하기에 부족합니다.',
    },
  },
  otherVerdict: (verdict) => ({
    title: `기타 판정 <code>${verdict}</code>`,
    about: `이 페이지는 판정 <code>${verdict}</code>을 설명하지 않습니다. 수치는 <code>rate.json</code>에 있습니다.`,
  }),
  everyTrial: '모든 시도',
  stableTitle: '안정적인 테스트',
  stableSummary: (n) => `안정적인 테스트 ${n}개 (실패 없음)`,
  noStable: '모든 반복을 통과한 테스트가 없습니다.',
  notDrawn: (n, max) => `나머지 ${n}개는 자세히 그리지 않았습니다 (이 페이지는 테스트 ${max}개까지 그립니다). 수치와 첫 오류:`,
  firstErrorColumn: '첫 오류',
  stripNote:
    '띠: 실행마다 표시 하나, 왼쪽에서 오른쪽으로 100개씩 한 줄. 높은 빨간 표시는 실패 (누르면 그 반복이 열립니다), 낮은 표시는 통과' +
    '<span class="key pass"></span>빠르게<span class="key slow"></span>간격<span class="key proof"></span>증명<span class="key fail"></span>실패. ' +
    '몰린 실패, 규칙적인 주기, 처음에만 나는 실패가 모양으로 보입니다. 실행 시간: 점 하나가 실행 하나, 막대는 그 줄의 평균입니다.',
  modes: { fast: '빠르게 (간격 없음)', single: '한 번 실행', slow: '간격', paired: '빠르게, 간격 실행 사이', proof: '증명' },
  modeShort: { fast: '빠르게', single: '한 번', slow: '간격', paired: '빠르게 (교차)', proof: '증명' },
  stripCaption: (mode, modeName, failures, executions) => `${modeName}: <span data-strip="${mode}">${executions}번 중 ${failures}번</span> 실패`,
  binned: (binSize, marks) => `; 표시 하나에 실행 ${binSize}번 (${marks}개 초과), 그중 하나라도 실패하면 빨간색`,
  noFacts: '이 실행에는 <code>facts.jsonl</code>이 없어 실행별 띠가 없습니다.',
  declaredAt: '선언 위치',
  linkTitle: (file) => `${file} 파일을 엽니다 (브라우저는 파일을 열 뿐, 그 줄로 이동하지는 못합니다)`,
  token: '토큰',
  tokenNone: '없음 (모든 실패에 있고 어떤 성공에도 없는 단어가 없습니다)',
  notAnalysed: '분석하지 않음',
  firstError: '첫 오류',
  predicatesCaption: '가장 강한 술어 (Liblit et al. 2005)',
  predicateColumns: ['술어', '실패에서 참', '성공에서 참', '증가량', '중요도', 'p (보정)'],
  compareCaption: (fast, slow, p, changed) => `빠르게 ${fast}, 간격 ${slow}: Fisher 정확 검정 p = ${p}, ${changed ? '<b>달라짐</b>' : '달라지지 않음'}.`,
  durationsCaption: (passed, passedMean, passedRange, failed, failedMean, failedRange) =>
    `실행 시간: 통과 (${passed}번) 평균 ${passedMean} (${passedRange}), 실패 (${failed}번) 평균 ${failedMean} (${failedRange})`,
  thinned: (points, stride) => `; 한 줄에 실행이 ${points}번을 넘으면 ${stride}번째마다 (또는 더 드물게) 하나만 그리며, 평균과 범위는 전체의 것입니다`,
  failingTitle: (proof) => (proof ? '실패한 증명 실행' : '실패한 반복'),
  failingCount: (shown, total, file) =>
    shown === total ? `${total}개, 모두 전체 내용 포함: 하나를 누르면 열립니다.` : `${total}개 중 처음 ${shown}개는 전체 내용 포함 (누르면 열립니다). 나머지 ${total - shown}개는 <code>${file}</code>에 있습니다.`,
  noFailingDetail: (file) => `자세한 내용이 이 폴더에 없습니다 (<code>${file}</code> 없음).`,
  repetition: (trial) => `#${trial}`,
  worker: (w) => `워커 ${w}`,
  order: (n) => `순서 ${n}`,
  round: (n) => `라운드 ${n}`,
  exitCode: (code) => `종료 코드 ${code}`,
  signal: (s) => `시그널 ${s}`,
  timedOut: '시간 초과',
  errorLabel: '오류',
  stackLabel: '스택',
  attachmentsLabel: '첨부 파일',
  stdoutLabel: '표준 출력',
  stderrLabel: '표준 오류',
  outputLabel: '출력',
  whereLabel: '위치',
  ranAfter: '바로 앞 테스트',
  readFrom: '읽은 폴더',
  repeatIndex: '반복 번호',
  none: '없음',
  markPassed: (which) => `${which} 통과`,
  markFailed: (which, detail) => `${which} 실패${detail}`,
  markBin: (which, failures, count) => `${which}: ${count}번 중 ${failures}번 실패`,
  markNotInFull: ' (이 페이지에는 전체 내용이 없습니다: facts.jsonl 참고)',
  orderTitle: '순서',
  orderFound: (culprit, after, otherwise, p) =>
    `${culprit}가 먼저 실행되면 실패합니다: 그 뒤에 실행됐을 때 ${after} 실패, 그 밖에는 ${otherwise} (Fisher 정확 검정 p = ${p}, 먼저 실행될 수 있었던 테스트 수로 보정).`,
  orderNeeded: (culprit, after, otherwise, p) =>
    `${culprit}가 먼저 실행되지 않으면 실패합니다: 그 뒤에 실행됐을 때 ${after} 실패, 그 밖에는 ${otherwise} (Fisher 정확 검정 p = ${p}, 먼저 실행될 수 있었던 테스트 수로 보정). 이 테스트는 앞서 실행된 테스트가 남기는 상태가 필요합니다: 이 테스트나 훅에서 직접 준비하세요.`,
  orderNotFound: (culprit, after, otherwise, p) => `이 횟수로는 순서 의존성을 찾지 못했습니다 (가장 가까운 후보: ${culprit}: 그 뒤 ${after} 실패, 그 밖에는 ${otherwise}, p = ${p}).`,
  orderTied: (why: string) => (why === '' ? '' : ` ${why}.`),
  replay: (failing, passing) => `${failing ? ` 실패하는 순서 재현: ${failing}` : ''}${passing ? `${failing ? ';' : ''} 통과하는 순서: ${passing}` : ''}${failing || passing ? '.' : ''}`,
  conditionsCaption: '라운드마다 바꾼 조건 (Fisher 정확 검정)',
  conditionColumns: ['비교', '의심 조건', '비교 대상', 'p', '태그'],
  comparisonKinds: { divergence: '병렬 대 직렬', load: '부하 대 유휴', gap: '빠르게 대 간격' },
  observerTitle: '느리게 실행하면 달라졌는가?',
  notObservedNonIdempotent: '관측하지 않았습니다: 시도끼리 독립이 아니므로, 간격을 두고 실행해도 타이밍이 아니라 남은 상태를 측정하게 됩니다.',
  notObservedFile: '관측하지 않았습니다: 이 폴더에 <code>observer.json</code>이 없습니다.',
  noneObserved: '관측한 테스트가 없습니다.',
  observerCommandCaption: (fast, slow, gap) => `빠르게 ${fast}, 간격 (${gap} ms) ${slow}.`,
  fisherLine: (p, changed, alpha) => `Fisher 정확 검정 (양측): p = ${p}; ${changed ? `<b>달라짐</b> (p &lt; ${alpha})` : `달라지지 않음 (p ≥ ${alpha})`}.`,
  observerCaption: (alpha, shown, total) =>
    `Fisher 정확 검정 (양측); p &lt; ${alpha}이면 달라짐${total > shown ? `; ${total}개 중 처음 ${shown}개` : ''}. 테스트별 그림은 위의 각 항목에 있습니다.`,
  observerColumns: { test: '테스트', fast: '빠르게', gapped: '간격', p: 'p', result: '결과' },
  changed: '달라짐',
  notChanged: '달라지지 않음',
  compareLabel: { fast: '빠르게', gap: (ms) => `간격 ${ms} ms` },
  fixedTitle: '고쳤다고 말하려면',
  proofLine: (command, trials, required, failures, passed, residual) =>
    `증명: ${command}를 필요한 ${required}번 중 <b>${trials}</b>번 실행, 실패 <b>${failures}</b>번: <b>${passed ? '통과' : '실패'}</b>.${residual === null ? '' : ` 증명 실행과 모순되지 않는 실패율의 상한은 ${residual}입니다 (Wilson 상한).`}`,
  noProof: '아직 증명 실행이 없습니다.',
  proofWeaker: (strict) => `증명이 측정보다 약한 조건에서 실행되어 격리를 해제하지 않습니다${strict ? '. 엄격 모드이므로 <b>실패</b>입니다' : ''}:`,
  weakness: WEAKNESS_TEXT.ko,
  planCaption: (rate, basis) => `실패율 ${rate}에서 필요한 연속 통과 횟수 (${basis})`,
  basis: { observed: '관측한 실패율', ci_high: '구간 상한 ci_high', ci_low: '구간 하한 ci_low' },
  planColumns: { confidence: '신뢰수준', runs: '횟수' },
  notPlanned: '아직 계획하지 않았습니다 (<code>runs_needed.json</code> 없음).',
  greenRuns: '필요한 연속 통과',
  greenRunsValue: (runs, confidence) => `${runs}번 (신뢰수준 ${confidence})`,
  retryBudget: '재시도 예산',
  retryNone: '없음: 매번 실패합니다',
  quarantineAfter: '격리 기준',
  quarantineValue: (n) => `재시도 후에도 ${n}번 연속 실패`,
  nothingToPlan: '실패한 것이 없어 계획할 것이 없습니다.',
  policyCaption: (confidence) => `테스트별 정책${confidence === null ? ' (아직 <code>policy.json</code> 없음)' : ` (신뢰수준 ${confidence})`}`,
  policyColumns: { test: '테스트', runs: '필요한 연속 통과', retry: '재시도 예산', quarantine: '격리 기준', proof: '증명' },
  noNumberShort: '계산 안 함: 독립이 아님',
  noNumberUndetermined: '계산 안 함: 판정 보류',
  proofCell: (trials, required, failures, passed) => `${required}번 중 ${trials}번 실행, 실패 ${failures}번: ${passed ? '통과' : '실패'}`,
  proofStatus: { 'not-selected': '선택되지 않음', missing: '없음 (테스트를 찾을 수 없음)' },
  aboutTitle: '이 페이지에 대해',
  about: (rows, detailed, marks, points, failing, stable) =>
    'flakeproof가 옆에 있는 파일들(<code>rate.json</code>, <code>facts.jsonl</code> 등)로 만들었으며, <code>flaky_report.md</code>와 내용이 같습니다. ' +
    '어떤 요청도 보내지 않습니다. 작은 스크립트 하나(검색, 필터, 정렬, 반복 열기)는 선택 사항이라, 없어도 인쇄하든 오프라인이든 똑같이 읽힙니다. ' +
    `어떤 실행에서도 작게 유지하려고 표마다 대상을 최대 ${rows}개, 안정적인 테스트를 최대 ${stable}개까지 나열하고, 자세히 그리는 테스트는 최대 ${detailed}개, 띠 하나에 표시는 최대 ${marks}개 (더 많은 실행은 표시를 나눠 쓰며, 띠 아래에 적습니다), ` +
    `한 줄에 실행 시간 점은 최대 ${points}개 (k번째 실행마다, 그림 아래에 적습니다), 그린 테스트마다 실패한 반복은 처음 ${failing}개만 전체 내용을 싣습니다 (글은 수천 자로 자르고 앞뒤를 남깁니다). 모든 수치는 JSON 파일에 있습니다.`,
  unreadable: (n) => `<code>facts.jsonl</code>의 ${n}줄은 읽을 수 있는 기록이 아니어서 건너뛰었습니다.`,
  testsMeasured: (n) => `테스트 ${n}개를 측정했습니다.`,
  plot: {
    rate: (x) => `실패율 ${x}`,
    interval: (low, high) => `구간 ${low} – ${high}`,
    axis: (max) => `실패율, 0%에서 ${max}까지`,
    strip: (label, executions, failures, binSize) => `${label}: 실행 ${executions}번, 실패 ${failures}번${binSize > 1 ? `, 표시 하나에 ${binSize}번` : ''}`,
    compare: (label, fast, slow) => `${label}: 빠르게 ${fast}, 간격 ${slow}`,
    passed: '통과',
    failed: '실패',
    mean: (name, v) => `${name}: 평균 ${v}`,
    durations: (label, passed, passedMean, failed, failedMean) => `${label}: 통과 ${passed}번, 평균 ${passedMean}; 실패 ${failed}번, 평균 ${failedMean}`,
  },
}

export const HTML_TEXT: Record<'en' | 'ko', HtmlText> = { en: EN, ko: KO }
