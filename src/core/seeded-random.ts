/**
 * mulberry32 (Tommy Ettinger's 32-bit generator): a seeded source of uniform numbers in [0, 1), so
 * every simulated bisection replays exactly from its seed. Statistical quality is ample for
 * Bernoulli draws at the rates simulated (it passes gjrand's and PractRand's smaller batteries).
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
