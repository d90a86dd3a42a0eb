import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { RateFileSchema } from '../../src/artifacts/schemas.js'
import { TestFactSchema } from '../../src/artifacts/test-schemas.js'
import { type CliResult, readArtifact, ROOT, runVitest, tempDir } from '../utils.js'

// Typecheck enabled on the same files as the runtime tests (test/fixtures/vitest-typecheck), as zod
// has it: each test runs as a runtime test and as its type-test twin of the same file and name.
const FIXTURE = join(ROOT, 'test/fixtures/vitest-typecheck')
const FLAKY = 'tests/rate.test.ts > parses a rate'
const STABLE = 'tests/rate.test.ts > always passes'

describe('typecheck on the same files as a flaky runtime test (one run of 10 repetitions)', { timeout: 120_000 }, () => {
  const out = tempDir()
  let result: CliResult
  const rate = () => readArtifact(join(out, 'rate.json'), RateFileSchema)
  const facts = () => readFileSync(join(out, 'facts.jsonl'), 'utf8').trim().split('\n').map((l) => TestFactSchema.parse(JSON.parse(l)))

  beforeAll(async () => {
    result = await runVitest(['run', '--', '--flaky-repeat', '10', '--flaky-out', out, '--flaky-out-anywhere'], {}, FIXTURE)
  }, 120_000)

  it('keeps the runtime test and its typecheck twin apart: the runtime id unchanged, the twin marked [typecheck]', () => {
    expect(rate().tests?.map((t) => t.id).sort()).toEqual([`[typecheck] ${STABLE}`, `[typecheck] ${FLAKY}`, STABLE, FLAKY])
  })

  it('counts the runtime test 5 failures of 10 (it fails on every second call) and each twin once', () => {
    const byId = new Map(rate().tests?.map((t) => [t.id, t]))
    expect(byId.get(FLAKY)).toMatchObject({ trials: 10, failures: 5, rate: 0.5, verdict: 'flaky' })
    expect(byId.get(STABLE)).toMatchObject({ trials: 10, failures: 0, verdict: 'stable' })
    expect(byId.get(`[typecheck] ${FLAKY}`)).toMatchObject({ trials: 1, failures: 0, verdict: 'stable' })
    expect(byId.get(`[typecheck] ${STABLE}`)).toMatchObject({ trials: 1, failures: 0, verdict: 'stable' })
  })

  it('writes one fact per execution under the id that counted it', () => {
    const lines = facts()
    // 2 runtime tests × 10 repetitions + 2 type tests once = 22.
    expect(lines).toHaveLength(22)
    expect(lines.filter((l) => l.test_id === FLAKY && l.outcome === 'failed').map((l) => l.trial)).toEqual([2, 4, 6, 8, 10])
    expect(lines.filter((l) => l.test_id === `[typecheck] ${FLAKY}`).map((l) => [l.outcome, l.mode])).toEqual([['passed', 'single']])
  })

  it('calls the runtime test flaky in the terminal, never "no flaky or broken test"', () => {
    const output = result.stdout + result.stderr
    // The verdict's row, then the id on its own line (src/session/_table.ts).
    expect(output).toMatch(/FLAKY\s+5 of 10\s[^\n]*\n\s+tests\/rate\.test\.ts > parses a rate/)
    expect(output).toContain('2 typecheck test(s) ran once')
    expect(output).not.toContain('no flaky or broken test')
    expect(result.code).toBe(0)
  })
})
