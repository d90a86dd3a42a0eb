import { hypergeometricUpperTail, hypergeometricUpperTailExact } from './fisher.js'
import type { Fraction } from './fraction.js'
import { isAllCaps } from './tokens.js'
import { byCodeUnits } from './text-order.js'

/**
 * Ranking predicates that are true mostly in failing trials, after Liblit et al., "Scalable
 * Statistical Bug Isolation" (PLDI 2005): for a predicate P,
 *   Failure(P) = F(P) / (S(P) + F(P))                      over trials where P was true,
 *   Context(P) = F(P obs) / (S(P obs) + F(P obs))           over trials where P was observed,
 *   Increase(P) = Failure(P) - Context(P),
 *   Importance(P) = 2 / (1/Increase(P) + 1/(log F(P) / log NumF)),
 * the harmonic mean of Increase and the log-normalised count of failing trials where P was true.
 *
 * A predicate is listed only when chance explains it badly. Null hypothesis: P holds independently
 * of failing, so among the trials where P was observed every choice of the failing ones is alike.
 * Its p-value is the chance that P holds in F(P) or more of them (Fisher's exact test, one-sided: the
 * hypergeometric tail) times the number of predicates examined for the test (every distinct word and
 * value, and every threshold of every numeric fact on either side: the best threshold is chosen after
 * looking at all of them), and P is listed when that is below 1 − confidence. One failure in five
 * trials, alone in its slowest, is 1 in 5 before the correction: timing says nothing yet.
 */

/** The facts of one trial. A key missing from a map means "not observed in this trial". */
export interface TrialFacts {
  failed: boolean
  /** e.g. { exit_code: '3', previous_outcome: 'passed' } */
  categorical: Readonly<Record<string, string | undefined>>
  /** e.g. { elapsed_ms: 41.2, stderr_bytes: 80, gap_before_ms: 3.1 } */
  numeric: Readonly<Record<string, number | undefined>>
  /** Words of the trial's output (see wordsInOrder). */
  words: ReadonlySet<string>
}

/** A predicate scored by Liblit et al. (2005): how much its being true raises the chance of failing. */
export interface RankedPredicate {
  /** Human-readable, e.g. `exit_code = 3`, `elapsed_ms <= 41.2`, `output contains STALE`. */
  predicate: string
  /** F(P): failing trials where P was true. */
  true_in_failures: number
  /** S(P): passing trials where P was true. */
  true_in_successes: number
  /** Trials where P was observed (true or false). */
  observed_in: number
  /** Failure(P) = F(P) / (F(P) + S(P)): the failure rate when P is true. */
  failure: number
  /** Context(P): the failure rate when P was observed at all, true or false. */
  context: number
  /** Increase(P) = Failure(P) − Context(P): positive when P being true makes failing likelier. */
  increase: number
  /** Harmonic mean of Increase and log F(P) / log(all failures): high when P is both specific and common. */
  importance: number
  /**
   * The chance of P holding in F(P) or more failing trials if it held regardless of failing
   * (one-sided Fisher), times the predicates examined for this test (Bonferroni), at most 1.
   */
  p_value: number
  /** `round`: a fact of the whole round (its condition, the tests before it), counted in rounds. */
  unit?: 'round'
}

/** 1 − the contract's 95% confidence: the default below which a predicate's p-value lists it. */
const FIVE_PERCENT: Fraction = { num: 1n, den: 20n }

/**
 * Builds predicates from the trials (each categorical value, the best threshold either side
 * of each numeric fact, each word seen in a failure), scores them and returns, most important first,
 * those whose Increase is positive and whose p-value (RankedPredicate.p_value) is below `alpha`.
 * Predicates true in exactly the same trials are merged into one line, so one cause is not listed ten
 * times.
 *
 * `rounds`: facts that hold for a whole round of executions (its condition, the tests that ran before
 * it), one entry per round, failed when any of its executions failed. The round is their unit:
 * counted per execution, the executions of a round that failed whole for any reason all share the
 * round's facts, and any of them would read as the cause. Searched in the same family (one count of
 * predicates examined), listed with `unit: 'round'`.
 */
export function rankPredicates(trials: readonly TrialFacts[], limit = 12, alpha: Fraction = FIVE_PERCENT, rounds: readonly TrialFacts[] = []): RankedPredicate[] {
  if (!trials.some((o) => o.failed)) return []
  const searches = [search(trials), ...(rounds.length > 0 ? [{ ...search(rounds), unit: 'round' as const }] : [])]
  const examined = searches.reduce((sum, s) => sum + s.examined, 0)
  const ranked: RankedPredicate[] = []
  for (const { of, totalFailures, groups, unit } of searches) {
    for (const group of groups) {
      const scored = score(group, of, totalFailures)
      if (scored.predicate.increase <= 0) continue
      const p = pValueOf(scored.counts)
      if (below(p, scored.counts, examined, alpha)) ranked.push({ ...scored.predicate, p_value: Math.min(1, p * examined), ...(unit ? { unit } : {}) })
    }
  }
  return ranked
    .sort((a, b) => b.importance - a.importance || b.increase - a.increase || byCodeUnits(a.predicate, b.predicate))
    .slice(0, limit)
}

// --- internal ---

/** One search: its trials' predicates, merged by truth, and how many it examined. */
function search(trials: readonly TrialFacts[]): { of: readonly TrialFacts[]; totalFailures: number; groups: Candidate[]; examined: number; unit?: 'round' } {
  const totalFailures = trials.filter((o) => o.failed).length
  if (totalFailures === 0) return { of: trials, totalFailures, groups: [], examined: 0 }
  const numeric = numericPredicates(trials, totalFailures)
  const groups = mergeByTruth([...categoricalPredicates(trials), ...numeric.chosen, ...wordPredicates(trials)])
  // The search's size: each distinct set of trials a value or word picks out, and each threshold examined.
  return { of: trials, totalFailures, groups, examined: numeric.examined + groups.filter((g) => !g.threshold).length }
}

/** Per trial: true, false, or undefined (not observed). */
interface Candidate {
  predicate: string
  truth: (boolean | undefined)[]
  /** A numeric fact's best threshold on one side: counted among the thresholds examined, not on its own. */
  threshold?: boolean
}

/** A predicate's counts: F(P), S(P), and the failing and passing trials where it was observed. */
interface Counts {
  f: number
  s: number
  fObs: number
  sObs: number
}

function categoricalPredicates(trials: readonly TrialFacts[]): Candidate[] {
  const values = new Map<string, Set<string>>()
  for (const o of trials) {
    if (!o.failed) continue
    for (const [key, value] of Object.entries(o.categorical)) {
      if (value === undefined) continue
      values.set(key, (values.get(key) ?? new Set()).add(value))
    }
  }
  return [...values].flatMap(([key, seen]) =>
    [...seen].map((value) => ({
      predicate: `${key} = ${value}`,
      truth: trials.map((o) => (o.categorical[key] === undefined ? undefined : o.categorical[key] === value)),
    })),
  )
}

function wordPredicates(trials: readonly TrialFacts[]): Candidate[] {
  const words = new Set<string>()
  for (const o of trials) if (o.failed) for (const w of o.words) words.add(w)
  // Capital words first, so a merged line leads with the one a human would grep for.
  const ordered = [...[...words].filter(isAllCaps), ...[...words].filter((w) => !isAllCaps(w))]
  return ordered.map((word) => ({
    predicate: `output contains ${word}`,
    truth: trials.map((o) => o.words.has(word)),
  }))
}

const LATIN1 = new TextDecoder('latin1')

function mergeByTruth(candidates: Candidate[]): Candidate[] {
  const groups = new Map<string, Candidate[]>()
  const codes = new Uint8Array(candidates[0]?.truth.length ?? 0)
  for (const c of candidates) {
    // One byte per trial, decoded once: a string built a character at a time cost more than the scoring.
    c.truth.forEach((t, i) => (codes[i] = t === undefined ? 0x2d : t ? 0x31 : 0x30))
    const key = LATIN1.decode(codes)
    const group = groups.get(key)
    if (group === undefined) groups.set(key, [c])
    else group.push(c)
  }
  return [...groups.values()].map((group) => {
    const [first] = group as [Candidate, ...Candidate[]]
    if (group.length === 1) return first
    const names = group.slice(0, 4).map((c) => c.predicate)
    const more = group.length > 4 ? ` (+${group.length - 4} more)` : ''
    return { predicate: `${names.join(' ≡ ')}${more}`, truth: first.truth, threshold: group.every((c) => c.threshold === true) }
  })
}

function score(candidate: Candidate, trials: readonly TrialFacts[], totalFailures: number): { predicate: Omit<RankedPredicate, 'p_value'>; counts: Counts } {
  const counts = { f: 0, s: 0, fObs: 0, sObs: 0 }
  candidate.truth.forEach((truth, i) => {
    if (truth === undefined) return
    const failed = trials[i]?.failed ?? false
    if (failed) counts.fObs++
    else counts.sObs++
    if (truth && failed) counts.f++
    else if (truth) counts.s++
  })
  return { predicate: fromCounts(candidate.predicate, counts, totalFailures), counts }
}

function fromCounts(predicate: string, { f, s, fObs, sObs }: Counts, totalFailures: number): Omit<RankedPredicate, 'p_value'> {
  const failure = f + s === 0 ? 0 : f / (f + s)
  const context = fObs + sObs === 0 ? 0 : fObs / (fObs + sObs)
  const increase = failure - context
  const importance = importanceOf(increase, f, totalFailures)
  return { predicate, true_in_failures: f, true_in_successes: s, observed_in: fObs + sObs, failure, context, increase, importance }
}

/** P(P holds in F(P) or more failing trials) if it held regardless of failing: the one-sided Fisher tail. */
function pValueOf({ f, s, fObs, sObs }: Counts): number {
  return hypergeometricUpperTail(fObs + sObs, fObs, f + s, f)
}

/**
 * Whether p · examined < alpha, `p` being pValueOf(counts): from the double, and from exact counts
 * when the double is within a millionth of the bound (its error is far smaller), so the decision is exact.
 */
function below(p: number, counts: Counts, examined: number, alpha: Fraction): boolean {
  const bound = Number(alpha.num) / Number(alpha.den) / examined
  if (p < bound * (1 - 1e-6)) return true
  if (p > bound * (1 + 1e-6)) return false
  const { f, s, fObs, sObs } = counts
  const exact = hypergeometricUpperTailExact(fObs + sObs, fObs, f + s, f)
  return exact.num * BigInt(examined) * alpha.den < alpha.num * exact.den
}

/** Importance(P) from Increase(P) and F(P): the harmonic mean of Increase and log F / log NumF. */
function importanceOf(increase: number, f: number, totalFailures: number): number {
  // log F / log NumF is 0/0 when there was one failure and P held in it: call that full coverage.
  const coverage = totalFailures === 1 ? f : f === 0 ? 0 : Math.log(f) / Math.log(totalFailures)
  return increase <= 0 || coverage <= 0 ? 0 : 2 / (1 / increase + 1 / coverage)
}

/** The importance of a predicate true in `f` of `fObs` failing and `s` of `sObs` passing trials (fromCounts, without the object). */
function importanceFrom(f: number, s: number, fObs: number, sObs: number, totalFailures: number): number {
  const failure = f + s === 0 ? 0 : f / (f + s)
  const context = fObs + sObs === 0 ? 0 : fObs / (fObs + sObs)
  return importanceOf(failure - context, f, totalFailures)
}

/**
 * For each numeric fact, the most important `<= t` and `> t` over thresholds at observed values
 * (each distinct value but the largest), found with running counts over the sorted values: the
 * failing and the passing values sorted apart and walked together, one distinct value at a time.
 */
function numericPredicates(trials: readonly TrialFacts[], totalFailures: number): { chosen: Candidate[]; examined: number } {
  // In order of first appearance; a loop, as one array of keys per trial was most of this function's time.
  const keys = new Set<string>()
  for (const o of trials) for (const key of Object.keys(o.numeric)) keys.add(key)
  const chosen: Candidate[] = []
  let examined = 0
  for (const key of keys) {
    const failing: number[] = []
    const passing: number[] = []
    for (const o of trials) {
      const value = o.numeric[key]
      if (value !== undefined) (o.failed ? failing : passing).push(value)
    }
    const f = new Float64Array(failing).sort()
    const s = new Float64Array(passing).sort()
    const [fObs, sObs] = [f.length, s.length]
    const best = { low: { importance: 0, t: Number.NaN }, high: { importance: 0, t: Number.NaN } }
    let i = 0
    let j = 0
    while (i < fObs || j < sObs) {
      const t = j >= sObs || (i < fObs && (f[i] as number) <= (s[j] as number)) ? (f[i] as number) : (s[j] as number)
      while (i < fObs && f[i] === t) i++
      while (j < sObs && s[j] === t) j++
      // At the largest value, `<= t` holds everywhere: no threshold.
      if (i === fObs && j === sObs) break
      examined += 2
      const low = importanceFrom(i, j, fObs, sObs, totalFailures)
      const high = importanceFrom(fObs - i, sObs - j, fObs, sObs, totalFailures)
      if (low > best.low.importance) best.low = { importance: low, t }
      if (high > best.high.importance) best.high = { importance: high, t }
    }
    const truth = (test: (v: number) => boolean) => trials.map((o) => (o.numeric[key] === undefined ? undefined : test(o.numeric[key])))
    const { low, high } = best
    if (!Number.isNaN(low.t)) chosen.push({ predicate: `${key} <= ${formatThreshold(low.t)}`, truth: truth((v) => v <= low.t), threshold: true })
    if (!Number.isNaN(high.t)) chosen.push({ predicate: `${key} > ${formatThreshold(high.t)}`, truth: truth((v) => v > high.t), threshold: true })
  }
  return { chosen, examined }
}

function formatThreshold(value: number): string {
  return String(Math.round(value * 100) / 100)
}
