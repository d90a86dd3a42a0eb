import { execFileSync, spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { BisectFileSchema } from '../../src/artifacts/bisect-schema.js'
import { calibrate } from '../../src/core/bisect-simulation.js'
import { BIN, childEnv, readArtifact, ROOT, settle, tempDir, waitFor } from '../utils.js'

/**
 * `flakeproof bisect` on real git repositories built here. The observed command's outcomes come
 * from a seeded generator whose state (a counter per commit) lives in a folder outside the
 * repository, so every run of this file sees the same outcomes, and the user's checkout can be
 * compared byte for byte before and after.
 */

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })

/**
 * Fails with probability rate.txt, deterministically: the first 32 bits of md5("<commit id>:<n>"),
 * n the times it ran at that commit before, as a uniform number (md5 mixes well enough that
 * consecutive n are independent; a linear generator seeded by n would not be).
 */
const CHECK_SH = `#!/bin/sh
rate=$(cat rate.txt); id=$(cat id.txt); f="$1/$id"
n=$(cat "$f" 2>/dev/null || echo 0); echo $((n + 1)) > "$f"
v=$(printf '%d' "0x$(printf '%s:%s' "$id" "$n" | md5sum | cut -c1-8)")
awk -v v="$v" -v rate="$rate" 'BEGIN { exit (v / 4294967296 < rate) ? 1 : 0 }'
`

/** An empty repository, and a state folder beside it (outside it) for the generator's counters. */
function emptyRepo(): { dir: string; repo: string; state: string } {
  const dir = tempDir('flakeproof-bisect-test-')
  const repo = join(dir, 'repo')
  const state = join(dir, 'state')
  mkdirSync(repo)
  mkdirSync(state)
  git(repo, 'init', '-q', '-b', 'main')
  return { dir, repo, state }
}

/** A repository of `commits` commits (ids 0 …), the failure rate `before` until `culprit`, `after` from it on. */
function linearRepo(commits: number, culprit: number, before: number, after: number): { repo: string; state: string; shas: string[] } {
  const { repo, state } = emptyRepo()
  writeFileSync(join(repo, 'check.sh'), CHECK_SH)
  const shas: string[] = []
  for (let i = 0; i < commits; i++) {
    writeFileSync(join(repo, 'rate.txt'), `${i >= culprit ? after : before}\n`)
    writeFileSync(join(repo, 'id.txt'), `${i}\n`)
    git(repo, 'add', '-A')
    git(repo, 'commit', '-qm', i === culprit ? `commit ${i}: the culprit` : `commit ${i}`)
    shas.push(git(repo, 'rev-parse', 'HEAD').trim())
  }
  return { repo, state, shas }
}

/** Everything of the user's checkout that bisect must leave as it was. */
function snapshot(repo: string): string {
  const hash = (text: string | Buffer) => createHash('sha256').update(text).digest('hex')
  return JSON.stringify({
    status: hash(git(repo, 'status', '--porcelain', '--ignored')),
    head: git(repo, 'rev-parse', 'HEAD'),
    branch: git(repo, 'symbolic-ref', '-q', 'HEAD'),
    index: hash(readFileSync(join(repo, '.git/index'))),
    staged: hash(git(repo, 'ls-files', '--stage')),
    worktrees: git(repo, 'worktree', 'list', '--porcelain'),
    admin: existsSync(join(repo, '.git/worktrees')) ? readdirSync(join(repo, '.git/worktrees')) : [],
  })
}

/**
 * The temp folder of one test's bisect runs (their TMPDIR): the worktrees they make go there, so a
 * test sees only its own runs' (the file's tests run at once, and other suites beside them), and
 * must find it empty once they end.
 */
const ownTemp = (): string => tempDir('flakeproof-bisect-test-tmp-')
const ours = (tmp: string): string[] => readdirSync(tmp).filter((name) => name.startsWith('flakeproof-bisect-'))

function bisect(args: string[], cwd: string, tmp: string, env: Record<string, string> = {}) {
  return spawn(process.execPath, [BIN, 'bisect', ...args], { cwd, env: { ...childEnv(), NO_COLOR: '1', TMPDIR: tmp, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
}

// At once, each in a repository and TMPDIR of its own.
describe.concurrent('flakeproof bisect --cmd on a 64-commit repository', () => {
  it('finds the commit where 5% became 30%, at 0.95, leaving the checkout as it was', async () => {
    const { repo, state, shas } = linearRepo(64, 37, 0.05, 0.3)
    const out = join(tempDir(), 'out')
    const before = snapshot(repo)
    const tmp = ownTemp()
    const result = await settle(bisect(['--good', shas[0] as string, '--bad', 'HEAD', '--cmd', `sh check.sh ${state}`, '--out-dir', out], repo, tmp))
    expect(result.stderr).toContain('The culprit is')
    expect(result.code).toBe(0)
    const file = readArtifact(join(out, 'bisect.json'), BisectFileSchema)
    expect(file.status).toBe('found')
    expect(file.culprit).toMatchObject({ sha: shas[37], position: 37, subject: 'commit 37: the culprit' })
    expect(file.culprit.probability).toBeGreaterThanOrEqual(0.95)
    expect(file.process_starts).toBe(file.executions)
    expect(file.visits.reduce((s, v) => s + v.executions, 0)).toBe(file.executions)
    expect(file.commits).toHaveLength(64)
    // Executions in line with the simulation of the same scenario (64 commits, 0.05 → 0.3, one process
    // each): this fixture's outcomes give 60 (0 of 27 failed before the culprit, 14 of 33 from it on);
    // 100 simulated bisections give mean 166, median 149, p95 329.
    const simulated = calibrate({ commits: 64, before: 0.05, after: 0.3 }, { confidence: 0.95, maxExecutions: 2000, costs: { startMs: 1, repetitionMs: 0, processPerExecution: true } }, 100, 64)
    expect(file.executions).toBeLessThanOrEqual(simulated.executions.p95)
    // One terminal line per visit, with the top three.
    expect(result.stderr.split('\n').filter((l) => /visit \d+ .* top: /.test(l))).toHaveLength(file.visits.length)
    expect(readFileSync(join(out, 'bisect.md'), 'utf8')).toContain('## Which commit')
    expect(readFileSync(join(out, 'bisect.html'), 'utf8')).toContain('<svg class="plot posterior"')
    expect(snapshot(repo)).toBe(before)
    expect(ours(tmp)).toEqual([])
  }, 240_000)
})

describe.concurrent('flakeproof bisect --merges', () => {
  it('names the merged pull request whose branch changed the rate', async () => {
    const { dir, repo, state } = emptyRepo()
    writeFileSync(join(repo, 'check.sh'), CHECK_SH)
    const commit = (id: number, rate: number, message: string): void => {
      writeFileSync(join(repo, 'rate.txt'), `${rate}\n`)
      writeFileSync(join(repo, 'id.txt'), `${id}\n`)
      git(repo, 'add', '-A')
      git(repo, 'commit', '-qm', message)
    }
    commit(0, 0.02, 'base')
    let id = 1
    // Six pull requests of two commits each; the fourth's second commit makes it fail 60% of the time.
    for (let pr = 1; pr <= 6; pr++) {
      git(repo, 'checkout', '-qb', `pr-${pr}`)
      commit(id++, pr < 4 ? 0.02 : 0.6, `pr ${pr}: first`)
      commit(id++, pr < 4 ? 0.02 : 0.6, `pr ${pr}: second`)
      git(repo, 'checkout', '-q', 'main')
      // The merge keeps its branch's id.txt: the branch's own commits are never visited with --merges.
      git(repo, 'merge', '-q', '--no-ff', '-m', `Merge pull request #${pr}`, `pr-${pr}`)
    }
    const out = join(dir, 'out')
    const result = await settle(bisect(['--good', 'HEAD~6', '--merges', '--cmd', `sh check.sh ${state}`, '--out-dir', out], repo, ownTemp()))
    expect(result.code).toBe(0)
    const file = readArtifact(join(out, 'bisect.json'), BisectFileSchema)
    expect(file.history).toBe('merges')
    expect(file.culprit.subject).toBe('Merge pull request #4')
    expect(file.assumptions.join(' ')).toContain('merge commits of the first-parent line')
  }, 120_000)
})

describe.concurrent('flakeproof bisect --vitest: batches of repetitions in one Vitest process', () => {
  it('finds the commit that made a Vitest test flaky, in fewer process starts than executions', async () => {
    const { dir, repo, state } = emptyRepo()
    writeFileSync(join(repo, '.gitignore'), 'node_modules/\n')
    writeFileSync(join(repo, 'package.json'), '{ "type": "module", "private": true }\n')
    // The same lockfile at every commit: --setup runs once, and its node_modules serves every commit.
    writeFileSync(join(repo, 'package-lock.json'), '{ "lockfileVersion": 3, "requires": true, "packages": {} }\n')
    // The same generator as check.sh, in the test: the counter file is per commit, outside the repository.
    writeFileSync(
      join(repo, 'cache.test.js'),
      [
        "import { createHash } from 'node:crypto'",
        "import { readFileSync, writeFileSync, existsSync } from 'node:fs'",
        "import { test, expect } from 'vitest'",
        "const rate = Number(readFileSync(new URL('./rate.txt', import.meta.url), 'utf8'))",
        "const id = Number(readFileSync(new URL('./id.txt', import.meta.url), 'utf8'))",
        "test('cache refresh', () => {",
        '  const f = `${process.env.BISECT_STATE}/${id}`',
        "  const n = existsSync(f) ? Number(readFileSync(f, 'utf8')) : 0",
        '  writeFileSync(f, String(n + 1))',
        "  const v = parseInt(createHash('md5').update(`${id}:${n}`).digest('hex').slice(0, 8), 16)",
        '  expect(v / 4294967296 < rate).toBe(false)',
        '})',
        '',
      ].join('\n'),
    )
    const shas: string[] = []
    for (let i = 0; i < 5; i++) {
      writeFileSync(join(repo, 'rate.txt'), `${i >= 3 ? 0.4 : 0}\n`)
      writeFileSync(join(repo, 'id.txt'), `${i}\n`)
      git(repo, 'add', '-A')
      git(repo, 'commit', '-qm', `commit ${i}`)
      shas.push(git(repo, 'rev-parse', 'HEAD').trim())
    }
    const out = join(dir, 'out')
    const before = snapshot(repo)
    // --setup links this package's Vitest into each checkout, as `npm ci` would install it.
    const setup = `mkdir -p node_modules && ln -s ${join(ROOT, 'node_modules/vitest')} node_modules/vitest`
    // A Vitest start costs hundreds of repetitions here (both measured), so the batches grow as large as that makes worth it.
    const result = await settle(bisect(['--good', shas[0] as string, '--vitest', 'cache.test.js', '--setup', setup, '--out-dir', out], repo, ownTemp(), { BISECT_STATE: state }))
    expect(result.stderr).toContain('The culprit is')
    expect(result.code).toBe(0)
    const file = readArtifact(join(out, 'bisect.json'), BisectFileSchema)
    expect(file.culprit).toMatchObject({ sha: shas[3], position: 3 })
    expect(file.subject).toMatchObject({ kind: 'vitest', command: 'cache.test.js' })
    expect(file.optimize).toBe('time')
    expect(file.process_starts * 4).toBeLessThan(file.executions)
    expect(file.visits.some((v) => v.executions > 1 && v.process_starts === 1)).toBe(true)
    expect(file.costs.start_ms).toBeGreaterThan(0)
    expect(file.costs.repetition_ms).toBeGreaterThan(0)
    expect(file.visits.filter((v) => v.setup_ms !== null)).toHaveLength(1)
    expect(snapshot(repo)).toBe(before)
    expect(existsSync(join(repo, 'node_modules'))).toBe(false)
  }, 300_000)
})

describe.concurrent('flakeproof bisect --prior-from', () => {
  it('starts from a rate measured at --bad, counted apart from its own executions', async () => {
    const { repo, state, shas } = linearRepo(16, 11, 0.05, 0.5)
    const dir = tempDir()
    // The measurement runs at HEAD (the bad commit) with its own counter folder, as a user's earlier one would.
    const measureState = join(dir, 'measure-state')
    mkdirSync(measureState)
    const measured = await settle(spawn(process.execPath, [BIN, 'measure', '--cmd', `sh check.sh ${measureState}`, '--trials', '40', '--out', join(dir, 'rate.json')], { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'] }))
    expect(measured.code).toBe(0)
    const rate = JSON.parse(readFileSync(join(dir, 'rate.json'), 'utf8')) as { trials: number; failures: number }
    const result = await settle(bisect(['--good', shas[0] as string, '--cmd', `sh check.sh ${state}`, '--prior-from', join(dir, 'rate.json'), '--out-dir', join(dir, 'out')], repo, ownTemp()))
    expect(result.code).toBe(0)
    const file = readArtifact(join(dir, 'out', 'bisect.json'), BisectFileSchema)
    expect(file.prior).toEqual({ from: join(dir, 'rate.json'), executions: 40, failures: rate.failures })
    expect(file.culprit.sha).toBe(shas[11])
    // The prior's executions sit at --bad beside the bisection's own; `executions` counts only the latter.
    expect(file.commits.at(-1)?.trials).toBe(40 + file.visits.filter((v) => v.position === 15).reduce((n, v) => n + v.executions, 0))
    expect(file.executions).toBe(file.visits.reduce((n, v) => n + v.executions, 0))
  }, 120_000)
})

describe.concurrent('flakeproof bisect, bad usage', { timeout: 60_000 }, () => {
  const { repo, shas } = linearRepo(3, 1, 0, 1)
  it.each([
    [['--good', 'nope', '--cmd', 'true'], '--good nope: not a commit'],
    [['--good', 'HEAD~2'], 'pass exactly one of --cmd, --vitest, --jest'],
    [['--good', 'HEAD~2', '--cmd', 'true', '--vitest', 'x'], 'pass exactly one of --cmd, --vitest, --jest'],
    [['--good', 'HEAD~2', '--vitest', 'x', '--timeout-ms', '100'], '--timeout-ms applies to --cmd only'],
    [['--good', 'HEAD', '--cmd', 'true'], 'are the same commit'],
    [['--good', 'HEAD', '--bad', 'HEAD~2', '--cmd', 'true'], 'is not an ancestor of --bad'],
    [['--good', 'HEAD~2', '--cmd', 'true', '--prior-from', 'missing.json'], '--prior-from missing.json: no such file'],
  ])('%j: exit 2 with one line', async (args, message) => {
    const result = await settle(bisect([...args, '--out-dir', join(tempDir(), 'out')], repo, ownTemp()))
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(message)
    expect(result.stderr.trim().split('\n')).toHaveLength(1)
    expect(shas).toHaveLength(3)
  })
})

// Last, and alone in this file: a signal that lands while a worktree is in use waits for the run's output.
describe('flakeproof bisect, interrupted', () => {
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)('%s removes its worktrees and leaves the checkout untouched (exit %i)', async (signal, code) => {
    const { repo, state, shas } = linearRepo(16, 9, 0.05, 0.5)
    const out = join(tempDir(), 'out')
    const before = snapshot(repo)
    const tmp = ownTemp()
    // Each execution rests a while, so the signal lands with a worktree in use.
    const child = bisect(['--good', shas[0] as string, '--cmd', `sleep 0.3; sh check.sh ${state}`, '--out-dir', out], repo, tmp)
    let stderr = ''
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    const done = settle(child)
    await waitFor('two visits', () => (stderr.match(/visit \d+ /g) ?? []).length >= 2)
    // Its worktrees' folder is in the TMPDIR it was given, so the check below is of its own.
    expect(ours(tmp)).toHaveLength(1)
    child.kill(signal)
    const result = await done
    expect(result.code).toBe(code)
    const file = readArtifact(join(out, 'bisect.json'), BisectFileSchema)
    expect(file.status).toBe('interrupted')
    expect(file.visits.length).toBeGreaterThanOrEqual(2)
    expect(snapshot(repo)).toBe(before)
    expect(ours(tmp)).toEqual([])
  }, 120_000)
})
