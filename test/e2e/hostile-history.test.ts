import { cpSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { HistoryFileSchema, type HistoryRecord, HistoryRecordSchema } from '../../src/artifacts/history-schemas.js'
import { type HostileCase, refusal, runCliIn, runHostileCase, VITEST_BIN, vitestProject } from '../hostile.js'
import { readArtifact, ROOT, tempDir } from '../utils.js'

/**
 * `flakeproof history` (docs/contracts.md §11) on hostile input (issue 19 items 3 and 6): spans and
 * dates bounded, numbers in a history line bounded at read, a run in the future refused, a copied
 * file counted once, and no write through a link. History lines are written here as a damaged or
 * copied file would be: their format is flakeproof's own.
 */

const HOUR = 3_600_000
/** One record of a run that ended `hoursAgo` hours ago. */
function record(overrides: Partial<HistoryRecord> = {}, hoursAgo = 1): HistoryRecord {
  return {
    test_id: 'tests/a.test.ts > adds',
    project: '',
    file: 'tests/a.test.ts',
    name: 'adds',
    outcome: 'passed',
    retries: 0,
    duration_ms: 3.5,
    commit: null,
    branch: 'main',
    os: 'linux',
    at: new Date(Date.now() - hoursAgo * HOUR).toISOString(),
    ...overrides,
  }
}
const runFile = (dir: string, path: string, ...records: object[]) => {
  mkdirSync(join(dir, path, '..'), { recursive: true })
  writeFileSync(join(dir, path), `${records.map((r) => JSON.stringify(r)).join('\n')}\n`)
}
const HINT = 'Pass only files of a .flakeproof/history/ folder'
const history = (...flags: string[]) => ['history', '--glob', 'h/*.jsonl', '--out', 'o', ...flags]
const oneRun = (dir: string) => runFile(dir, 'h/r1.jsonl', record())

const BOUNDS: HostileCase[] = [
  ...['999999999999d', '9999999d', '876001h', '5218w'].map((since) => ({
    name: `--since ${since}: further back than 100 years`,
    scene: oneRun,
    args: history('--since', since),
    code: 2,
    stderr: [refusal('history', `--since must be a span of at most 100 years (36500d, 876000h or 5214w) (got "${since}"); e.g. --since 30d`)],
  })),
  {
    name: '--since a date in the future',
    scene: oneRun,
    args: history('--since', '2099-01-01'),
    code: 2,
    stderr: [refusal('history', '--since must not be in the future (got "2099-01-01"); e.g. --since 30d')],
  },
  {
    name: '--since a date before 1970',
    scene: oneRun,
    args: history('--since', '1969-12-31'),
    code: 2,
    stderr: [refusal('history', '--since must be 1970-01-01 or later (got "1969-12-31"); e.g. --since 2026-01-31')],
  },
  {
    name: '--since neither a span nor a date',
    scene: oneRun,
    args: history('--since', '5y'),
    code: 2,
    stderr: [refusal('history', '--since must be a span like 30d, 12h or 2w, or an ISO date like 2026-01-31 (got "5y"); e.g. --since 30d')],
  },
  {
    name: '"retries": 1000000000 is refused at read, naming file and line (it once took 2.2 GB and crashed)',
    scene: (dir) => runFile(dir, 'h/r1.jsonl', record(), record({ test_id: 'tests/a.test.ts > b', name: 'b', outcome: 'failed', retries: 1_000_000_000 })),
    args: history(),
    code: 2,
    stderr: [refusal('history', `--glob h/r1.jsonl: line 2: retries: 1000000000 is more than 10000, more retries than any runner makes: the line is damaged. ${HINT}`)],
  },
  {
    name: '"duration_ms": 1e300 is refused at read',
    scene: (dir) => runFile(dir, 'h/r1.jsonl', record({ duration_ms: 1e300 })),
    args: history(),
    code: 2,
    stderr: [refusal('history', `--glob h/r1.jsonl: line 1: duration_ms: 1e+300 is more than 2678400000 ms (31 days), longer than any test runs: the line is damaged. ${HINT}`)],
  },
  {
    name: 'a run dated 2099 does not decide --since 1d: refused, naming file and line',
    scene: (dir) => {
      runFile(dir, 'h/r1.jsonl', record())
      runFile(dir, 'h/r2.jsonl', record({ outcome: 'failed', at: '2099-01-01T00:00:00.000Z' }))
    },
    args: history('--since', '1d'),
    code: 2,
    stderr: [refusal('history', `--glob h/r2.jsonl: line 1: at 2099-01-01T00:00:00.000Z is in the future: the clock of the machine that recorded it was wrong; correct or remove the file. ${HINT}`)],
  },
  {
    name: 'a skipped test is no record (outcome "skipped" refused, not counted)',
    scene: (dir) => runFile(dir, 'h/r1.jsonl', record({ outcome: 'skipped' as HistoryRecord['outcome'] })),
    args: history(),
    code: 2,
    stderr: [refusal('history', `--glob h/r1.jsonl: line 1: outcome: Invalid option: expected one of "passed"|"failed"|"flaky". ${HINT}`)],
  },
  {
    name: 'a line that is no history record',
    scene: (dir) => runFile(dir, 'h/r1.jsonl', record(), { x: 1 }),
    args: history(),
    code: 2,
    stderr: [/^flakeproof history: --glob h\/r1\.jsonl: line 2: test_id: Invalid input: expected string, received undefined; /],
  },
  {
    name: 'no run left after --branch',
    scene: oneRun,
    args: history('--branch', 'nope'),
    code: 2,
    stderr: [refusal('history', 'no run left after the filters (1 file(s) matched --glob); widen --since or --branch')],
  },
  {
    name: '--out a symbolic link: refused, its target untouched',
    scene: (dir) => {
      oneRun(dir)
      mkdirSync(join(dir, 'elsewhere'))
      writeFileSync(join(dir, 'elsewhere/rate.json'), '{"keep":"me"}\n')
      symlinkSync('elsewhere', join(dir, 'o'))
    },
    args: history(),
    code: 2,
    stderr: [refusal('history', '--out o is a symbolic link to elsewhere, and flakeproof never writes through one; give the folder itself, or a new one')],
  },
]

const COUNTED_ONCE: HostileCase[] = [
  {
    name: 'a history file copied into two downloaded folders counts once',
    scene: (dir) => {
      runFile(dir, 'a/r1.jsonl', record({}, 3))
      runFile(dir, 'a/r2.jsonl', record({}, 2))
      mkdirSync(join(dir, 'b'))
      cpSync(join(dir, 'a/r1.jsonl'), join(dir, 'b/r1.jsonl'))
    },
    args: ['history', '--glob', '{a,b}/*.jsonl', '--out', 'o'],
    code: 0,
    stderr: ['flakeproof history: each run counted once: b/r1.jsonl holds the same run as a/r1.jsonl', 'flakeproof 2 run(s) read; files in o (`npx flakeproof vitest --flaky-proof --flaky-out o` proves the flaky ones)'],
    writes: ['o'],
    after: (dir) => expect(readArtifact(join(dir, 'o/history.json'), HistoryFileSchema)).toMatchObject({ runs: 2, tests: [{ runs: 2, trials: 2 }] }),
  },
]

describe('history: bounded on every input', () => {
  it.each(BOUNDS)('$name', async (c) => {
    await runHostileCase(c)
  })
})

describe('history: each run counted once', () => {
  it.each(COUNTED_ONCE)('$name', async (c) => {
    await runHostileCase(c)
  })
})

describe('history: skipped, todo and expected failures stay outside the counts', { timeout: 60_000 }, () => {
  it('an everyday Vitest run records only the tests that ran, an expected failure as passed', async () => {
    const dir = tempDir('flakeproof-hostile-')
    vitestProject(dir, {
      'tests/a.test.ts': [
        "import { expect, test } from 'vitest'",
        "test('adds', () => expect(1 + 1).toBe(2))",
        "test.skip('skipped', () => expect(1).toBe(2))",
        "test.todo('to do')",
        "test.fails('fails as expected', () => expect(1).toBe(2))",
        '',
      ].join('\n'),
      'vitest.config.mjs': `export default { test: { include: ['tests/**/*.test.ts'], reporters: ['default', [${JSON.stringify(join(ROOT, 'dist/plugin/vitest/reporter.js'))}, {}]] } }\n`,
    })
    const run = await runCliIn(dir, ['run'], {}, [], VITEST_BIN)
    expect(run.code, run.stdout + run.stderr).toBe(0)
    const [file] = readdirSync(join(dir, '.flakeproof/history'))
    const lines = readFileSync(join(dir, '.flakeproof/history', file as string), 'utf8').trim().split('\n').map((l) => HistoryRecordSchema.parse(JSON.parse(l)))
    expect(lines.map((l) => [l.name, l.outcome])).toEqual([
      ['adds', 'passed'],
      ['fails as expected', 'passed'],
    ])
    const analysed = await runCliIn(dir, ['history', '--out', 'o'])
    expect(analysed.code, analysed.stderr).toBe(0)
    expect(readArtifact(join(dir, 'o/history.json'), HistoryFileSchema).tests.map((t) => [t.id, t.trials, t.failures])).toEqual([
      ['tests/a.test.ts > adds', 1, 0],
      ['tests/a.test.ts > fails as expected', 1, 0],
    ])
  })
})
