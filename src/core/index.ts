export { atMost, complement, type Fraction, fractionFromCounts, fractionFromDecimal, fractionFromNumber, lessThan } from './fraction.js'
export { fisherExactTwoSided, type FisherResult, type TwoByTwo } from './fisher.js'
export { type Independence, type IndependencePattern, testIndependence } from './independence.js'
export { type TrialFacts, rankPredicates, type RankedPredicate } from './isolation.js'
export {
  computeQuarantineAfter,
  computeRetryBudget,
  computeRunsNeeded,
  type Planned,
  type Probability,
  type QuarantineOptions,
  RETRY_RESIDUAL,
  type RunsNeededOptions,
  type TooMany,
  type Unplannable,
} from './planning.js'
export { discriminateTokens, isAllCaps, type TokenEvidence, type TokenResult, wordsInOrder } from './tokens.js'
export { computeVerdict, type Outcome, type Verdict } from './verdict.js'
export { stripAnsi } from './ansi.js'
export { type IntervalWidth, type WilsonInterval, wilsonInterval, Z_95, zForConfidence } from './wilson.js'
export { parseDurationMs } from './duration.js'
export { type BudgetPlan, CALIBRATION_RUNS, type Calibration, planBudgetRepeats } from './time-budget.js'
