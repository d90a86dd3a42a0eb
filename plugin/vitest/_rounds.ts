import type { Vitest } from 'vitest/node'

/**
 * Whole-run rounds (docs/contracts.md §7): `vitest.start` runs the selected files once, then
 * `runTestSpecifications` runs the same specifications `rounds - 1` more times in this Vitest, so
 * only the first round pays start-up (config, plugins, globbing). Each run gets new workers (Vitest
 * 3.2–5 tear its pool's workers down between runs, isolate or not), hence fresh module state. Works
 * for `vitest run` with the plugin and for `flakeproof vitest` alike, since both call `start`; watch
 * mode keeps its own reruns. `runTestSpecifications` rather than `rerunTestSpecifications`: the
 * latter prints watch-mode banners. An interrupted round ends the measurement (the reporter writes
 * what ran, and closes its rounds), and with it the loop.
 */
export function runInRounds(vitest: Vitest, rounds: number, reporter: { readonly roundsOpen: boolean; endRounds(): void }): void {
  if (rounds <= 1 || vitest.config.watch) return
  const start = vitest.start.bind(vitest)
  vitest.start = async (filters?: string[]) => {
    try {
      const first = await start(filters)
      const specifications = await vitest.getRelevantTestSpecifications(filters)
      for (let round = 2; round <= rounds && reporter.roundsOpen; round++) await vitest.runTestSpecifications(specifications, true)
      return first
    } finally {
      // Normally the last round's end already wrote the files; this only catches a loop cut short.
      reporter.endRounds()
    }
  }
}
