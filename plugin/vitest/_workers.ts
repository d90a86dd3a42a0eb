import { availableParallelism } from 'node:os'
import type { Vitest } from 'vitest/node'

/** Workers a project's files may use at once, as Vitest 4 resolves it (its `resolveMaxWorkers`). */
export function workersOf(vitest: Vitest, config: { maxWorkers?: number }): number {
  return config.maxWorkers || vitest.config.maxWorkers || Math.max(availableParallelism() - 1, 1)
}
