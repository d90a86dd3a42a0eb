import type { MeasuredUnder, RunStress, Weakness } from '../artifacts/conditions-schema.js'
import { describeWeakness, type Weakness as CoreWeakness, weakerConditions } from '../core/proof-strength.js'

/** The options of a proof run that replay a measurement's conditions. */
export interface ProofConditions {
  rounds: number
  divergence: boolean
  load: boolean
  shuffle: boolean
  seed?: number | undefined
}

/**
 * What of the measurement's conditions (policy.json `measured_under`) a proof run leaves out, each
 * with the flag that replays it (docs/contracts.md §13). A flake measured under load, in parallel
 * rounds against serial ones, in fresh rounds or in shuffled orders may well pass an idle in-place
 * repetition of the unfixed code: such a proof fails, saying what it did not replay. Gaps are
 * recorded but not asked for: a proof repeats without them by design.
 */
export function unreproducedConditions(measured: MeasuredUnder | undefined, proof: ProofConditions): string[] {
  if (!measured) return []
  const missing: string[] = []
  if (measured.rounds > 1 && proof.rounds < measured.rounds) missing.push(`${measured.rounds} whole-run rounds with fresh module state (--flaky-rounds ${measured.rounds})`)
  if (measured.conditions.includes('serial') && !proof.divergence) missing.push('parallel and serial rounds (--flaky-divergence)')
  if (measured.conditions.includes('load') && !proof.load) missing.push(`a busy machine${measured.load_procs === null ? '' : `, ${measured.load_procs} spinning process(es)`} (--flaky-load)`)
  if (measured.shuffle && !proof.shuffle) missing.push('reseeded test orders (--flaky-shuffle)')
  else if (!measured.shuffle && measured.seeds.length === 1 && proof.seed !== measured.seeds[0]) missing.push(`the order of seed ${measured.seeds[0]} (--flaky-seed ${measured.seeds[0]})`)
  return missing
}

/** How a proof compares with the measurements of the tests it proves (docs/contracts.md §13.5). */
export interface ProofStrength {
  /** Per proven test: how its proof was easier than its own measurement (absent: not weaker). */
  perTest: Record<string, Weakness[]>
  /** Every condition in which the proof was easier than some test's measurement, the hardest such measurement for each. */
  overall: Weakness[]
}

/**
 * Compares the stress a proof met with each proven test's measurement (a proof of the output folder's
 * measurement: one for all; of the committed policy: each entry's own). `loadFlag` spells the option
 * that spins processes in this kind of run, for the note that says how to match the load.
 */
export function judgeProofStrength(measured: Readonly<Record<string, MeasuredUnder | undefined>>, ran: RunStress, loadFlag: (procs: number) => string): ProofStrength {
  const perTest: Record<string, Weakness[]> = {}
  const hardest = new Map<Weakness['condition'], CoreWeakness>()
  for (const [id, under] of Object.entries(measured)) {
    const found = weakerConditions(under, ran)
    if (found.length === 0) continue
    perTest[id] = found.map((w) => ({ ...w, note: describeWeakness(w, ran, loadFlag) }))
    for (const w of found) {
      const before = hardest.get(w.condition)
      if (!before || (typeof w.measured === 'number' && typeof before.measured === 'number' && w.measured > before.measured)) hardest.set(w.condition, w)
    }
  }
  const order: Weakness['condition'][] = ['workers', 'concurrent_runs', 'pool', 'isolate', 'load_per_cpu']
  const overall = order.flatMap((c) => {
    const w = hardest.get(c)
    return w ? [{ ...w, note: describeWeakness(w, ran, loadFlag) }] : []
  })
  return { perTest, overall }
}
