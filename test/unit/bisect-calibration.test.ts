import { describe, expect, it } from 'vitest'
import { BATCH_EFFICIENCY } from '../../src/core/bisect-policy.js'
import { calibrate, simulateBisect } from '../../src/core/bisect-simulation.js'

/**
 * The smoke version of bench/bisect-calibration.mjs: the real decision code (src/core/bisect-run.ts)
 * on seeded simulated commits. Stopping at posterior ≥ confidence must name the right commit at
 * least that often; a few hundred trials give a standard error of about 1.3 points at 0.95, so the
 * assertion allows two of them (a correct bisection fails it about 2% of the seeds it could have).
 */
describe('bisect calibration (seeded simulation)', () => {
  const confidence = 0.95
  const cmd = { startMs: 1, repetitionMs: 0, processPerExecution: true }
  const inProcess = { startMs: 100, repetitionMs: 1, processPerExecution: false }

  it.each([
    ['one process per execution', 32, 0.1, 0.6, cmd, 0],
    ['batches sized by cost (--optimize time), a start costing 100 repetitions', 32, 0.05, 0.3, inProcess, 0],
    ['batches that keep 85% of the information per execution (--optimize executions)', 32, 0.05, 0.3, inProcess, BATCH_EFFICIENCY],
  ] as const)('%s: %i commits, %d → %d, is right at least 95% of the time', (_, commits, before, after, costs, batchEfficiency) => {
    const result = calibrate({ commits, before, after }, { confidence, maxExecutions: 5000, costs, batchEfficiency }, 300, 20260523)
    expect(result.converged).toBe(1)
    expect(result.accuracy).toBeGreaterThanOrEqual(confidence - 2 * result.standardError)
    expect(result.executions.p50).toBeLessThanOrEqual(result.executions.p95)
    if (!costs.processPerExecution) expect(result.starts.mean).toBeLessThan(result.executions.mean / 3)
    else expect(result.starts.mean).toBe(result.executions.mean)
  }, 60_000)

  it('replays exactly from its seed', () => {
    const settings = { confidence, maxExecutions: 5000, costs: cmd }
    const a = simulateBisect({ commits: 16, before: 0.1, after: 0.5 }, settings, 42)
    const b = simulateBisect({ commits: 16, before: 0.1, after: 0.5 }, settings, 42)
    expect(a).toEqual(b)
  })

  it('reports the best guess and budget when the budget runs out first', () => {
    // Rates 0.1 and 0.12 cannot be told apart in 50 executions.
    const { summary } = simulateBisect({ commits: 64, before: 0.1, after: 0.12 }, { confidence, maxExecutions: 50, costs: cmd }, 7)
    expect(summary.found).toBe(false)
    expect(summary.executions).toBe(50)
    expect(summary.probability).toBeLessThan(confidence)
  })
})
