import type { MeasuredUnder } from '../artifacts/conditions-schema.js'

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
