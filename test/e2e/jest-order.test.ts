import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { ConditionsFileSchema } from '../../src/artifacts/conditions-schema.js'
import { RateFileSchema } from '../../src/artifacts/schemas.js'
import { BIN, type CliResult, readArtifact, ROOT, runNodeIn, tempDir } from '../utils.js'

/**
 * Order dependence on Jest, shuffled by its own `--randomize --seed` (the twin of
 * test/e2e/vitest-causes.test.ts): a mock never restored breaks the test after it, and a test that
 * needs what another leaves fails when it runs first; and a describe block breaks the test beside it,
 * its two tests never parted by the shuffle. Seeds 1–12 are Jest's, so the counts are too.
 */
const FIXTURE = join(ROOT, 'test/fixtures/jest-order')
const BROKEN_BY = 'tests/order.test.js > mocks the labels and never restores them'
const VICTIM = 'tests/order.test.js > reads the real labels'
const SETTER = 'tests/order.test.js > fills the cache'
const NEEDY = 'tests/order.test.js > reads the filled cache'
const THEMED = 'tests/block.test.js > renders in the default theme'
const DARK = 'tests/block.test.js > dark mode'

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
    // 0 of 9 rounds after it failed, 3 of 3 otherwise: 1 of C(12, 3) = 220. Eight candidates in the run
    // (each of the two failing tests of order.test.js, the three others; block.test.js's two), so
    // significant below 0.05 / 8 = 0.00625.
    expect(orderOf(NEEDY)).toMatchObject({ culprit: SETTER, direction: 'needs', after_culprit_rounds: { trials: 9, failures: 0 }, otherwise_rounds: { trials: 3, failures: 3 }, significant: true, hypotheses: 8 })
    expect(orderOf(NEEDY)?.p_value).toBeCloseTo(1 / 220, 10)
    const text = (result.stdout + result.stderr).replace(/\s+/g, ' ')
    expect(text).toContain(`Fails unless ${SETTER} runs before it (failed in 0 of 9 rounds after it, 3 of 3 otherwise`)
    expect(text).toContain(`fails unless ${SETTER} runs first`)
    expect(text).toContain(`fails after ${BROKEN_BY}`)
  })

  it('names both tests of the describe block that breaks the test beside it, and says no shuffle parts them', () => {
    // Jest keeps a block whole: its two tests ran before the test in the same 6 rounds, and always will.
    // 6 of 6 against 0 of 6: two-sided p = 2 / C(12, 6) = 2/924.
    expect(orderOf(THEMED)).toMatchObject({ culprit: `${DARK} > keeps dark after a reload`, tied: [`${DARK} > switches to dark`], together: { kind: 'block', scope: ['dark mode'] }, after_culprit_rounds: { trials: 6, failures: 6 }, otherwise_rounds: { trials: 6, failures: 0 }, significant: true })
    expect(orderOf(THEMED)?.p_value).toBeCloseTo(2 / 924, 10)
    const text = (result.stdout + result.stderr).replace(/\s+/g, ' ')
    expect(text).toContain('these 2 tests run on the same side of it in every shuffled order (describe dark mode, which a shuffle keeps whole), so no number of rounds tells them apart')
  })

  it('replays the failing order it names: one run with its seed fails both tests, the file’s own order neither', async () => {
    const failing = orderOf(NEEDY)?.failing_order
    expect(failing).toEqual({ round: 1, seed: 1 })
    expect(orderOf(VICTIM)?.failing_order).toEqual({ round: 1, seed: 1 })
    const replay = tempDir()
    await runNodeIn(FIXTURE, [BIN, 'jest', '--flaky-repeat', '1', '--flaky-seed', String(failing?.seed), '--flaky-out', replay, '--flaky-out-anywhere'])
    const failed = (readArtifact(join(replay, 'rate.json'), RateFileSchema).tests ?? []).filter((t) => t.failures > 0).map((t) => t.id)
    // Seed 1 runs block.test.js's test before its dark-mode block: it passes there.
    expect(failed.sort()).toEqual([NEEDY, VICTIM].sort())
    const plain = tempDir()
    await runNodeIn(FIXTURE, [BIN, 'jest', '--flaky-repeat', '1', '--flaky-out', plain, '--flaky-out-anywhere'])
    expect((readArtifact(join(plain, 'rate.json'), RateFileSchema).tests ?? []).every((t) => t.failures === 0)).toBe(true)
  }, 60_000)
})
