import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ObserverFileSchema, SummaryFileSchema } from '../../src/artifacts/schemas.js'
import { readArtifact, runVitest, tempDir } from '../utils.js'

const FLAKY = 'tests/counter.test.ts > fails on every fifth call'
const TIMING = 'tests/timing.test.ts > races when called quickly'
const BROKEN = 'tests/counter.test.ts > always fails'

describe('observing: the same tests again with gaps', () => {
  it('sees the timing-sensitive test never fail gapped, and the counter fail on both sides; each pair ordered by a coin', async () => {
    const out = tempDir()
    const flags = ['--flaky-repeat', '200', '--flaky-observe', '--flaky-slow-repeat', '20', '--flaky-out', out, '--flaky-out-anywhere']
    // Gaps of 600 ms with a 400 ms test timeout: the rest before a repetition is not test time. Only the
    // two files whose tests finish at once: behaviours.test.ts awaits timers, which a loaded machine
    // can stretch past any short timeout.
    const result = await runVitest(['run', 'tests/counter.test.ts', 'tests/timing.test.ts', '--testTimeout=400', '--maxWorkers=2', '--', ...flags], { FIXTURE_GAP_MS: '600' })
    expect(result.code).toBe(1)
    const observer = readArtifact(join(out, 'observer.json'), ObserverFileSchema)
    // Timing: 40/200 fast, 0/20 with 600 ms gaps; Fisher two-sided on [[40,160],[0,20]] = 0.0288 for
    // the first block against the gapped ones (scipy 1.17.1: scipy.stats.fisher_exact([[40, 160], [0, 20]])[1]
    // = 0.028791531338852844).
    expect(observer.tests?.[TIMING]).toMatchObject({ fast: { trials: 200, failures: 40 }, slow: { trials: 20, failures: 0, gap_ms: 600 }, paired: { trials: 20 } })
    expect(observer.tests?.[TIMING]?.p_value).toBeCloseTo(0.0287915313, 9)
    // Calls 201…240 in 20 pairs: a gapped call is never quick, so it never races; a fast one races on
    // every fifth call (205, 210, …, 240) the coin gave the fast side: at most 8 of 20.
    expect(observer.tests?.[TIMING]?.paired?.failures).toBeLessThanOrEqual(8)
    // `changed` is the randomised comparison, paired against gapped.
    for (const id of [TIMING, FLAKY]) expect(observer.tests?.[id]?.changed).toBe((observer.tests?.[id]?.paired_p_value ?? 1) < 0.05)
    // The counter does not care about time: calls 205, 210, …, 240 fail on whichever side they fall.
    const counter = observer.tests?.[FLAKY]
    expect((counter?.slow.failures ?? 0) + (counter?.paired?.failures ?? 0)).toBe(8)
    expect(observer.tests?.[BROKEN]).toMatchObject({ slow: { trials: 20, failures: 20 }, paired: { trials: 20, failures: 20 } })
    expect(observer.assignment_seed).toBeGreaterThanOrEqual(0)
    // After the first block, pairs of one gapped and one fast repetition, in either order.
    const modes = readFileSync(join(out, 'facts.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { test_id: string; mode: string }).filter((f) => f.test_id === TIMING).map((f) => f.mode)
    const pairs = Array.from({ length: 20 }, (_, j) => modes.slice(200 + 2 * j, 202 + 2 * j).sort().join(','))
    expect(new Set(pairs)).toEqual(new Set(['paired,slow']))
    // Tests that never failed fast are not slowed down.
    expect(Object.keys(observer.tests ?? {}).sort()).toEqual([BROKEN, FLAKY, TIMING].sort())
    expect(readArtifact(join(out, 'summary.json'), SummaryFileSchema).tests?.[TIMING]?.observer_changed).toBe(observer.tests?.[TIMING]?.changed)
    // 200 fast repetitions, then 20 pairs with 600 ms before each gapped one for each of the three tests
    // that failed: two of them share a file, so 24 s of gaps in its worker, plus Vitest's start. The
    // other file's 12 s go in a second worker beside it (`--maxWorkers=2`: this file runs alone, and
    // Vitest's default on 2 cores is one worker, which made it 36 s).
  }, 300_000)
})
