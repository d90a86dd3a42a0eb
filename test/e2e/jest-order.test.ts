import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { ConditionsFileSchema } from '../../src/artifacts/conditions-schema.js'
import { RateFileSchema } from '../../src/artifacts/schemas.js'
import { BIN, type CliResult, readArtifact, ROOT, runNodeIn, tempDir } from '../utils.js'

/**
 * Order dependence on Jest, shuffled by its own `--randomize --seed` (the twin of
 * test/e2e/vitest-causes.test.ts): a mock never restored breaks the test after it, and a test that
 * needs what another leaves fails when it runs first. Seeds 1–12 are Jest's, so the counts are too.
 */
const FIXTURE = join(ROOT, 'test/fixtures/jest-order')
const BROKEN_BY = 'tests/order.test.js > mocks the labels and never restores them'
const VICTIM = 'tests/order.test.js > reads the real labels'
const SETTER = 'tests/order.test.js > fills the cache'
const NEEDY = 'tests/order.test.js > reads the filled cache'

describe('flakeproof jest --flaky-rounds 12 --flaky-repeat 1 --flaky-shuffle --flaky-seed 1', () => {
  const out = tempDir()
  let result: CliResult
  const orderOf = (id: string) => readArtifact(join(out, 'conditions.json'), ConditionsFileSchema).tests[id]?.order

  beforeAll(async () => {
    result = await runNodeIn(FIXTURE, [BIN, 'jest', '--flaky-rounds', '12', '--flaky-repeat', '1', '--flaky-shuffle', '--flaky-seed', '1', '--flaky-out', out, '--flaky-out-anywhere'])
  }, 180_000)

  it('names the test whose mock breaks the one after it', () => {
    // 5 of 5 rounds after it failed, 0 of 7 otherwise: 1 of C(12, 5) = 792 orders as extreme.
    expect(orderOf(VICTIM)).toMatchObject({ culprit: BROKEN_BY, direction: 'fails-after', after_culprit_rounds: { trials: 5, failures: 5 }, otherwise_rounds: { trials: 7, failures: 0 }, significant: true, tag: 'order-dependent' })
    expect(orderOf(VICTIM)?.p_value).toBeCloseTo(1 / 792, 10)
    expect(orderOf(VICTIM)?.tied).toBeUndefined()
  })

  it('says a test fails unless the one that fills its cache runs first, ', () => {
    // 0 of 9 rounds after it failed, 3 of 3 otherwise: 1 of C(12, 3) = 220. Six candidates in the run
    // (each of the two failing tests, the three others), so significant below 0.05 / 6 = 0.00833.
    expect(orderOf(NEEDY)).toMatchObject({ culprit: SETTER, direction: 'needs', after_culprit_rounds: { trials: 9, failures: 0 }, otherwise_rounds: { trials: 3, failures: 3 }, significant: true, hypotheses: 6 })
    expect(orderOf(NEEDY)?.p_value).toBeCloseTo(1 / 220, 10)
    const text = (result.stdout + result.stderr).replace(/\s+/g, ' ')
    expect(text).toContain(`Fails unless ${SETTER} runs before it (failed in 0 of 9 rounds after it, 3 of 3 otherwise`)
    expect(text).toContain(`fails unless ${SETTER} runs first`)
    expect(text).toContain(`fails after ${BROKEN_BY}`)
  })

  it('replays the failing order it names: one run with its seed fails both tests, the file’s own order neither', async () => {
    const failing = orderOf(NEEDY)?.failing_order
    expect(failing).toEqual({ round: 1, seed: 1 })
    expect(orderOf(VICTIM)?.failing_order).toEqual({ round: 1, seed: 1 })
    const replay = tempDir()
    await runNodeIn(FIXTURE, [BIN, 'jest', '--flaky-repeat', '1', '--flaky-seed', String(failing?.seed), '--flaky-out', replay, '--flaky-out-anywhere'])
    const failed = (readArtifact(join(replay, 'rate.json'), RateFileSchema).tests ?? []).filter((t) => t.failures > 0).map((t) => t.id)
    expect(failed.sort()).toEqual([NEEDY, VICTIM].sort())
    const plain = tempDir()
    await runNodeIn(FIXTURE, [BIN, 'jest', '--flaky-repeat', '1', '--flaky-out', plain, '--flaky-out-anywhere'])
    expect((readArtifact(join(plain, 'rate.json'), RateFileSchema).tests ?? []).every((t) => t.failures === 0)).toBe(true)
  }, 60_000)
})
