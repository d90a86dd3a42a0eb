import { spawn, spawnSync } from 'node:child_process'
import { cpSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { RateFileSchema } from '../../src/artifacts/schemas.js'
import { TestFactSchema } from '../../src/artifacts/test-schemas.js'
import { type HostileCase, refusal, runCliIn, runHostileCase } from '../hostile.js'
import { readArtifact, ROOT, settle, tempDir } from '../utils.js'

/**
 * merge (docs/contracts.md §10), hostile inputs: each run is counted once however it is named
 * (issue 19 item 3), skipped tests stay outside the counts, and nothing is written through a link
 * or left behind by a refusal. The folders are `flakeproof ingest` outputs of reports recorded from
 * pytest and Vitest (test/fixtures/junit-runs/pytest, test/fixtures/junit/vitest.xml): test-mode
 * folders in a second, without a Vitest run.
 */

const PYTEST = join(ROOT, 'test/fixtures/junit-runs/pytest')
/** test_split_covers_all_items fails in run-4.xml and run-8.xml only (one `<failure>` each, grep). */
const COVERS = 'test_batches > test_split_covers_all_items'
const EVEN = 'test_batches > test_split_is_even'
const base = tempDir('flakeproof-hostile-base-')

beforeAll(async () => {
  const ingest = async (glob: string, out: string, ...flags: string[]) => {
    const result = await runCliIn(base, ['ingest', '--junit', glob, '--out-dir', out, ...flags])
    expect(result.code, result.stderr).toBe(0)
  }
  await ingest(join(PYTEST, 'run-[1-4].xml'), 's1')
  await ingest(join(PYTEST, 'run-[5-8].xml'), 's2')
  await ingest(join(ROOT, 'test/fixtures/junit/vitest.xml'), 'v')
  await ingest(join(PYTEST, 'run-[1-4].xml'), 'c99', '--confidence', '0.99')
}, 60_000)

/** A copy of one of the ingested folders at `dir/to`. */
const copy = (name: string, dir: string, to = name) => cpSync(join(base, name), join(dir, to), { recursive: true })
const testsOf = (dir: string) => readArtifact(join(dir, 'rate.json'), RateFileSchema).tests?.map((t) => [t.id, t.trials, t.failures])
const merged = (names: string) => `flakeproof merged ${names.split(', ').length} folder(s): ${names}`
/** One folder's counts: runs 1-4, of which run 4 failed test_split_covers_all_items. */
const ONE_RUN = [
  [COVERS, 4, 1],
  [EVEN, 4, 0],
]
/** Without a run id (folders written before rate.json had one): the same rate.json means the same run. */
const withoutRunId = (path: string) => {
  const { run_id: _dropped, ...rest } = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>
  writeFileSync(path, `${JSON.stringify(rest, null, 2)}\n`)
}
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}'

const COUNTED_ONCE: HostileCase[] = [
  {
    name: 's1 s1/ ./s1: one folder named three ways',
    scene: (dir) => copy('s1', dir),
    args: ['merge', 's1', 's1/', './s1', '--out', 'm'],
    code: 0,
    stderr: ['flakeproof merge: each run counted once: s1/ is the same folder as s1; ./s1 is the same folder as s1', merged('s1')],
    writes: ['m'],
    after: (dir) => expect(testsOf(join(dir, 'm'))).toEqual(ONE_RUN),
  },
  {
    name: 'a symbolic link to a folder beside the folder',
    scene: (dir) => {
      copy('s1', dir)
      symlinkSync('s1', join(dir, 'L'))
    },
    args: ['merge', 's1', 'L', '--out', 'm'],
    code: 0,
    stderr: ['flakeproof merge: each run counted once: L is the same folder as s1', merged('s1')],
    writes: ['m'],
    after: (dir) => expect(testsOf(join(dir, 'm'))).toEqual(ONE_RUN),
  },
  {
    name: 'a copied folder (same run id)',
    scene: (dir) => {
      copy('s1', dir)
      copy('s1', dir, 'copy')
    },
    args: ['merge', 's1', 'copy', '--out', 'm'],
    code: 0,
    stderr: [withRunId('flakeproof merge: each run counted once: copy holds the same run as s1 (run_id <id>)'), merged('s1')],
    writes: ['m'],
    after: (dir) => expect(testsOf(join(dir, 'm'))).toEqual(ONE_RUN),
  },
  {
    name: 'a copied folder written before run ids (same rate.json)',
    scene: (dir) => {
      copy('s1', dir)
      withoutRunId(join(dir, 's1/rate.json'))
      cpSync(join(dir, 's1'), join(dir, 'copy'), { recursive: true })
    },
    args: ['merge', 's1', 'copy', '--out', 'm'],
    code: 0,
    stderr: ['flakeproof merge: each run counted once: copy holds the same run as s1 (the same rate.json)', merged('s1')],
    writes: ['m'],
    after: (dir) => expect(testsOf(join(dir, 'm'))).toEqual(ONE_RUN),
  },
  {
    name: 'a merge beside a folder already in it',
    scene: (dir) => {
      copy('s1', dir)
      copy('s2', dir)
      expect(spawnSync(process.execPath, [join(ROOT, 'dist/src/cli/bin.js'), 'merge', 's1', 's2', '--out', 'm12'], { cwd: dir }).status).toBe(0)
    },
    args: ['merge', 'm12', 's1', '--out', 'm'],
    code: 0,
    stderr: ['flakeproof merge: each run counted once: s1 is already merged into m12', merged('m12')],
    writes: ['m'],
    // Runs 1-8: test_split_covers_all_items failed runs 4 and 8.
    after: (dir) => expect(testsOf(join(dir, 'm'))).toEqual([[COVERS, 8, 2], [EVEN, 8, 0]]),
  },
  {
    name: 'two merges sharing a run: refused, naming both',
    scene: (dir) => {
      copy('s1', dir)
      copy('s2', dir)
      copy('v', dir)
      const bin = join(ROOT, 'dist/src/cli/bin.js')
      expect(spawnSync(process.execPath, [bin, 'merge', 's1', 's2', '--out', 'ma'], { cwd: dir }).status).toBe(0)
      expect(spawnSync(process.execPath, [bin, 'merge', 's2', 'v', '--out', 'mb'], { cwd: dir }).status).toBe(0)
    },
    args: ['merge', 'ma', 'mb', '--out', 'm'],
    code: 2,
    stderr: [withRunId(refusal('merge', 'mb: holds a run that ma holds too (run_id <id>), but not all of them; merge the folders they were made from instead'))],
  },
  {
    name: 'a skipped test stays outside the counts',
    scene: (dir) => copy('v', dir),
    args: ['merge', 'v', '--out', 'm'],
    code: 0,
    stderr: [merged('v')],
    writes: ['m'],
    // vitest.xml: `cart > not yet` is <skipped/>; `totals > rounds every other run` has a <failure>.
    after: (dir) => {
      expect(testsOf(join(dir, 'm'))).toEqual([
        ['cart.test.ts > cart > totals > rounds every other run', 1, 1],
        ['cart.test.ts > cart > adds items', 1, 0],
      ])
      // The skipped line is kept in facts.jsonl, after the counted ones, so their trials are the rounds.
      const lines = readFileSync(join(dir, 'm/facts.jsonl'), 'utf8').trim().split('\n').map((l) => TestFactSchema.parse(JSON.parse(l)))
      expect(lines.filter((l) => l.outcome === 'skipped').map((l) => l.name)).toEqual(['cart > not yet'])
    },
  },
]

const REFUSED: HostileCase[] = [
  {
    name: '"d/*" --out d/merged: the output is no input of itself, and a second run works too',
    scene: (dir) => {
      mkdirSync(join(dir, 'd'))
      copy('s1', dir, 'd/a')
      copy('s2', dir, 'd/b')
    },
    args: ['merge', 'd/*', '--out', 'd/merged'],
    code: 0,
    stderr: [merged('d/a, d/b')],
    writes: ['d/merged'],
    after: async (dir) => {
      expect(testsOf(join(dir, 'd/merged'))).toEqual([[COVERS, 8, 2], [EVEN, 8, 0]])
      const again = await runCliIn(dir, ['merge', 'd/*', '--out', 'd/merged'])
      expect([again.code, again.stderr.trim()]).toEqual([0, merged('d/a, d/b')])
    },
  },
  {
    name: 'an --out named as an input: refused, nothing created',
    scene: (dir) => copy('s1', dir),
    args: ['merge', 's1', '--out', 's1/'],
    code: 2,
    stderr: [refusal('merge', '--out s1/ is also a folder to merge (s1); write the merge to a new folder, e.g. --out merged')],
  },
  {
    name: 'a glob matching no folder: refused, no --out folder left behind',
    args: ['merge', 'nothing/*', '--out', 'm'],
    code: 2,
    stderr: [refusal('merge', 'nothing/*: no such folder, and no folder matches it as a glob; quote a glob so the shell leaves it to flakeproof, e.g. "shards/*"')],
  },
  {
    name: 'folders measured at different confidence levels',
    scene: (dir) => {
      copy('s1', dir)
      copy('c99', dir)
    },
    args: ['merge', 's1', 'c99', '--out', 'm'],
    code: 2,
    stderr: [refusal('merge', 'c99: measured at confidence 0.99, but s1 at 0.95; merge only folders measured at the same --confidence')],
  },
  {
    name: 'a test-mode folder without facts.jsonl',
    scene: (dir) => {
      copy('s1', dir)
      spawnSync('rm', [join(dir, 's1/facts.jsonl')])
    },
    args: ['merge', 's1', '--out', 'm'],
    code: 2,
    stderr: [refusal('merge', 's1: no facts.jsonl, so its rounds cannot be lined up with the other folders; keep facts.jsonl with rate.json when collecting shard outputs')],
  },
  {
    name: 'rate.json of another schema_version',
    scene: (dir) => {
      copy('s1', dir)
      const rate = JSON.parse(readFileSync(join(dir, 's1/rate.json'), 'utf8')) as Record<string, unknown>
      writeFileSync(join(dir, 's1/rate.json'), JSON.stringify({ ...rate, schema_version: 2 }))
    },
    args: ['merge', 's1', '--out', 'm'],
    code: 2,
    stderr: [refusal('merge', 's1: rate.json has schema_version 2, this flakeproof reads 1; merge folders written by the same major version')],
  },
  {
    name: 'a facts.jsonl line that is not JSON, named by file and line',
    scene: (dir) => {
      copy('s1', dir)
      writeFileSync(join(dir, 's1/facts.jsonl'), '{"trial": 1, "test_id"\n')
    },
    args: ['merge', 's1', '--out', 'm'],
    code: 2,
    stderr: [
      refusal(
        'merge',
        'input s1/facts.jsonl: line 1 is not valid JSON. Pass output folders of `flakeproof measure`/`collect` or of a Vitest run, each with rate.json and facts.jsonl',
      ),
    ],
  },
  {
    name: 'a rate.json that is a named pipe: refused before it is opened',
    scene: (dir) => {
      mkdirSync(join(dir, 'p'))
      spawnSync('mkfifo', [join(dir, 'p/rate.json')])
    },
    args: ['merge', 'p', '--out', 'm'],
    code: 2,
    stderr: [refusal('merge', 'p: rate.json is a named pipe, not a regular file; merge output folders as flakeproof wrote them')],
  },
  {
    name: 'a facts.jsonl that is a named pipe: refused before it is opened',
    scene: (dir) => {
      copy('s1', dir)
      spawnSync('rm', [join(dir, 's1/facts.jsonl')])
      spawnSync('mkfifo', [join(dir, 's1/facts.jsonl')])
    },
    args: ['merge', 's1', '--out', 'm'],
    code: 2,
    stderr: [refusal('merge', 's1: facts.jsonl is a named pipe, not a regular file; merge output folders as flakeproof wrote them')],
  },
  {
    name: '--out a symbolic link to another measurement: refused, the measurement untouched',
    scene: (dir) => {
      copy('s1', dir)
      copy('s2', dir, 'other')
      symlinkSync('other', join(dir, 'L'))
    },
    args: ['merge', 's1', '--out', 'L'],
    code: 2,
    stderr: [refusal('merge', '--out L is a symbolic link to other, and flakeproof never writes through one; give the folder itself, or a new one')],
  },
]

describe('merge: each run counted once', () => {
  it.each(COUNTED_ONCE)('$name', async (c) => {
    await runHostileCase(c)
  })
})

describe('merge: refused, or not fooled', () => {
  it.each(REFUSED)('$name', async (c) => {
    await runHostileCase(c)
  })
})

// strace injects SIGTERM at the moment merge opens its input's facts.jsonl: after the signal handlers
// are set, before anything is merged — no race with a timer. .ci/run installs strace.
const canInject = process.platform === 'linux' && spawnSync('strace', ['-V']).status === 0
describe.skipIf(!canInject)('merge under SIGTERM', () => {
  it('stops, exits 143, and leaves no merged result', async () => {
    const dir = tempDir('flakeproof-hostile-')
    copy('s1', dir)
    const facts = join(dir, 's1/facts.jsonl')
    const args = ['-f', '-qq', '-o', '/dev/null', '-P', facts, '-e', 'trace=openat', '-e', 'inject=openat:signal=SIGTERM:when=1']
    const child = spawnMerge(dir, args)
    const result = await settle(child)
    expect(result.code, result.stderr).toBe(143)
    expect(result.stderr.trim().split('\n')).toEqual(['flakeproof SIGTERM: stopping', 'flakeproof merge: stopped before the merge was whole; nothing in m was changed'])
    expect(readdirNames(join(dir, 'm'))).toEqual([])
  })
})

function spawnMerge(dir: string, straceArgs: string[]) {
  return spawn('strace', [...straceArgs, process.execPath, join(ROOT, 'dist/src/cli/bin.js'), 'merge', join(dir, 's1'), '--out', 'm'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] })
}

function readdirNames(path: string): string[] {
  try {
    return readdirSync(path).sort()
  } catch {
    return []
  }
}

/** The whole line, `<id>` standing for a run id (a random UUID). */
function withRunId(line: string): RegExp {
  const quote = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  return new RegExp(`^${line.split('<id>').map(quote).join(UUID)}$`)
}
