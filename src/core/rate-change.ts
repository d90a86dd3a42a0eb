/**
 * A rate change at one of several boundaries of a sequence (a test's history at its commits). Null
 * hypothesis: the sequence's outcomes are exchangeable (one rate throughout), so given F failures
 * among R every order is equally likely. The statistic is the smallest two-sided Fisher p-value over
 * the boundaries (before against after); its p-value is exact: the share of the C(R, F) orders whose
 * smallest p is as small, by counting lattice paths that cross no rejecting cell (O(R·F)). That is
 * the Bonferroni bound's exact counterpart: trying m boundaries costs less than m times the chance.
 */

export interface RateChange {
  /** The boundary: outcomes before index `at` (0-based) against from `at` on. */
  at: number
  /** Fisher's exact p at that boundary alone. */
  splitPValue: number
  /** The chance of a smallest p this small over all the boundaries, under the null. */
  pValue: number
}

/**
 * What earlier calls computed, shared by the tests of one history (they share their runs' commits,
 * and many their counts). One per analysis (newFisherTables).
 * - `fisher`: Fisher tables by boundary, length and failures (they depend on nothing else).
 * - `rejected`: the walk's rejected mass by boundaries, length, failures and threshold, which are all
 *   it reads: tests of the same counts whose smallest p is the same get the same p-value, walked once.
 */
export interface FisherTables {
  fisher: Map<string, Map<number, number>>
  rejected: Map<string, number>
}

export function newFisherTables(): FisherTables {
  return { fisher: new Map(), rejected: new Map() }
}

/**
 * `failed[i]`: whether element i failed; `boundaries`: the indices (1 … R−1) where a split may be.
 * Undefined when nothing can change (no boundary, no failure, or no pass). `tables`: shared between
 * calls, so a table computed once is not computed again (the same numbers either way).
 */
export function rateChangeAt(failed: readonly boolean[], boundaries: readonly number[], tables: FisherTables = newFisherTables()): RateChange | undefined {
  const total = failed.length
  const failures = failed.filter(Boolean).length
  const splits = [...new Set(boundaries)].filter((b) => b > 0 && b < total).sort((a, b) => a - b)
  if (splits.length === 0 || failures === 0 || failures === total) return undefined
  const logFactorial = [0]
  for (let k = 1; k <= total; k++) logFactorial.push((logFactorial[k - 1] as number) + Math.log(k))
  const lnChoose = (n: number, k: number): number => (logFactorial[n] as number) - (logFactorial[k] as number) - (logFactorial[n - k] as number)
  const before = [0]
  for (const f of failed) before.push((before.at(-1) as number) + (f ? 1 : 0))
  // Each boundary's two-sided Fisher p for every count of failures before it.
  const byBoundary = splits.map((s) => {
    const key = `${s} ${total} ${failures}`
    let table = tables.fisher.get(key)
    if (table === undefined) tables.fisher.set(key, (table = fisherByCount(s, total, failures, lnChoose)))
    return table
  })
  const observed = splits.map((s, i) => ({ at: s, splitPValue: (byBoundary[i] as Map<number, number>).get(before[s] as number) ?? 1 }))
  const found = observed.reduce((a, b) => (b.splitPValue < a.splitPValue ? b : a))
  // Ties within 1e-7 count as as extreme (R's fisher.test uses the same relative tolerance).
  const threshold = found.splitPValue * (1 + 1e-7)
  // String(threshold) is the exact double: equal keys, equal walks.
  const walk = `${splits.join(',')} ${total} ${failures} ${threshold}`
  const known = tables.rejected.get(walk)
  if (known !== undefined) return { ...found, pValue: Math.min(1, known) }
  // Probability mass of the orders by failures so far, walking the positions; cells whose boundary
  // p is at or below the threshold are removed as they are reached (the order has rejected).
  let mass = new Float64Array(failures + 1)
  mass[0] = 1
  // Two rows, swapped at each position rather than a new one made: the cells a step can reach are
  // cleared first, the others were never reached (the reachable cells only grow).
  let stepped = new Float64Array(failures + 1)
  let rejected = 0
  let next = 0
  for (let position = 0; position < total; position++) {
    stepped.fill(0, 0, Math.min(failures, position + 1) + 1)
    const left = total - position
    for (let f = 0; f <= Math.min(failures, position); f++) {
      const m = mass[f] as number
      if (m === 0) continue
      const fail = (failures - f) / left
      if (f < failures) stepped[f + 1] = (stepped[f + 1] as number) + m * fail
      stepped[f] = (stepped[f] as number) + m * (1 - fail)
    }
    const reached = stepped
    stepped = mass
    mass = reached
    if (splits[next] === position + 1) {
      const table = byBoundary[next] as Map<number, number>
      for (const [f, p] of table) {
        if (p <= threshold) {
          rejected += mass[f] as number
          mass[f] = 0
        }
      }
      next++
      // Past the last boundary nothing more can be rejected.
      if (next === splits.length) break
    }
  }
  tables.rejected.set(walk, rejected)
  return { ...found, pValue: Math.min(1, rejected) }
}

// --- internal ---

/** Two-sided Fisher p for `x` failures among the first `s` of `total` with `failures` in all, for each possible x. */
function fisherByCount(s: number, total: number, failures: number, lnChoose: (n: number, k: number) => number): Map<number, number> {
  const low = Math.max(0, failures - (total - s))
  const high = Math.min(failures, s)
  const all = lnChoose(total, failures)
  const weights: { x: number; w: number }[] = []
  for (let x = low; x <= high; x++) weights.push({ x, w: Math.exp(lnChoose(s, x) + lnChoose(total - s, failures - x) - all) })
  // p(x) = the mass of every count at most as likely as x: ascending weights, summed as they come.
  const sorted = [...weights].sort((a, b) => a.w - b.w)
  const result = new Map<number, number>()
  let i = 0
  let sum = 0
  while (i < sorted.length) {
    const w = (sorted[i] as { w: number }).w
    let j = i
    while (j < sorted.length && (sorted[j] as { w: number }).w <= w * (1 + 1e-7)) sum += (sorted[j++] as { w: number }).w
    for (let k = i; k < j; k++) result.set((sorted[k] as { x: number }).x, Math.min(1, sum))
    i = j
  }
  return result
}
