import { execFileSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { RateFileSchema } from '../../src/artifacts/schemas.js'
import { readArtifact, ROOT, runCli, startCli, settle, tempDir } from '../utils.js'

/**
 * Hostile and awkward inputs to `ingest` and `repeat` (issue 19's ingest/repeat cases): each case
 * states the exact exit code, every line printed on stderr, the tests counted, and that the files
 * around it are as they were.
 */
const recorded = (path: string) => join(ROOT, 'test/fixtures/recorded', path)

/** A folder with `copies` copies of one recorded report, and a file of the user's beside them that nothing may touch. */
function copies(source: string, count: number, extension: string): string {
  const dir = tempDir()
  mkdirSync(join(dir, 'reports'))
  for (let run = 1; run <= count; run++) copyFileSync(source, join(dir, 'reports', `run-${run}.${extension}`))
  writeFileSync(join(dir, 'notes.txt'), 'mine\n')
  return dir
}

/** Every file below `dir`, with its bytes, to show that nothing was changed. */
function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {}
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) files[join(entry.parentPath, entry.name)] = readFileSync(join(entry.parentPath, entry.name), 'latin1')
  }
  return files
}

/** What a command left in its output folder besides the .gitignore every command writes there first. */
const written = (out: string) => (existsSync(out) ? readdirSync(out).filter((name) => name !== '.gitignore') : [])

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 50))
}

const ids = (out: string) => readArtifact(join(out, 'rate.json'), RateFileSchema).tests?.map((t) => [t.id, t.trials, t.failures]) ?? []

describe('skipped, xfail, todo and ignored tests stay outside the counts', () => {
  it.each([
    // pytest.skip and pytest.xfail: <skipped type="pytest.skip"> and <skipped type="pytest.xfail">; 2 runs, run 1 of the series passes every_third_run.
    ['pytest skip and xfail, 2 runs', recorded('pytest/run-1.xml'), 2, 'xml', '--junit', /test_skipped|test_expected_to_fail/, ['tests.test_b.TestAlpha > test_same', 2, 2]],
    // `#[ignore = "not yet"]`: `test tests::not_yet ... ignored, not yet`; 9 runs.
    ['cargo #[ignore], 9 runs', recorded('cargo/run-1.log'), 9, 'log', '--libtest', /not_yet/, ['beta > tests::same', 9, 9]],
    // node:test `{ todo: true }` that throws: <skipped type="todo"> and a <failure>; 100 runs.
    ['node:test todo that throws, 100 runs', recorded('node-test/run-1.xml'), 100, 'xml', '--junit', /later/, ['Alpha > same (beside "only in b")', 100, 100]],
  ] as const)('%s', async (_, source, count, extension, flag, skipped, broken) => {
    const dir = copies(source, count, extension)
    const before = snapshot(dir)
    const result = await runCli(['ingest', flag, `reports/*.${extension}`, '--out-dir', 'out'], { cwd: dir })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr).toBe('')
    const rows = ids(join(dir, 'out'))
    expect(rows.filter(([id]) => skipped.test(String(id)))).toEqual([])
    expect(rows).toContainEqual(broken)
    // Every other test passed every run: no skipped test became a failure.
    expect(rows.filter(([, , failures]) => Number(failures) > 0)).toEqual([broken])
    for (const [path, bytes] of Object.entries(before)) expect(readFileSync(path, 'latin1')).toBe(bytes)
  })
})

describe('reports that are not regular files are refused before anything is read or run', () => {
  it('ingest: a glob matching a named pipe exits 2 in one line, nothing written', async () => {
    const dir = copies(recorded('pytest/run-1.xml'), 1, 'xml')
    execFileSync('mkfifo', [join(dir, 'reports', 'run-2.xml')])
    const result = await runCli(['ingest', '--junit', 'reports/*.xml', '--out-dir', 'out'], { cwd: dir })
    expect(result.code).toBe(2)
    expect(result.stderr.trim().split('\n')).toEqual([
      'flakeproof ingest: --junit "reports/*.xml" matches reports/run-2.xml, which is a named pipe, not a report file; reports are read from regular files (or every report below a folder). See `flakeproof ingest --help`.',
    ])
    expect(written(join(dir, 'out'))).toEqual([])
  })

  it('repeat --junit naming a named pipe exits 2 in one line before the first run', async () => {
    const dir = tempDir()
    execFileSync('mkfifo', [join(dir, 'report.xml')])
    const result = await runCli(['repeat', '--runs', '2', '--junit', 'report.xml', '--out-dir', 'out', '--', 'touch', 'ran'], { cwd: dir })
    expect(result.code).toBe(2)
    expect(result.stderr.trim().split('\n')).toEqual([
      'flakeproof repeat: --junit report.xml is a named pipe, not a report file; reports are read from regular files (or every report below a folder). See `flakeproof repeat --help`.',
    ])
    expect(existsSync(join(dir, 'ran'))).toBe(false)
    expect(written(join(dir, 'out'))).toEqual([])
  })

  it('repeat: a run that leaves a named pipe where its report goes is that run’s error; nothing blocks', async () => {
    const dir = tempDir()
    const result = await runCli(['repeat', '--runs', '1', '--junit', 'r-{run}.xml', '--out-dir', 'out', '--', 'mkfifo', 'r-{run}.xml'], { cwd: dir })
    expect(result.code).toBe(2)
    expect(result.stderr.trim().split('\n')).toEqual([
      'flakeproof r-1.xml: not a regular file but a named pipe; reports are read from regular files only',
      'flakeproof repeat: no report could be read (1 error, above); nothing was written. See `flakeproof repeat --help`.',
    ])
  })

  it('repeat: SIGTERM while a run is still to write its report ends it at once with 143, one line each', async () => {
    const dir = tempDir()
    const child = startCli(['repeat', '--runs', '3', '--junit', 'r-{run}.xml', '--out-dir', 'out', '--', 'sh', '-c', 'touch started; sleep 30'], { cwd: dir })
    // Sent once the first run is under way (it made its marker), so flakeproof's handlers are listening.
    await until(() => existsSync(join(dir, 'started')))
    child.kill('SIGTERM')
    const result = await settle(child)
    expect(result.code).toBe(143)
    expect(result.stderr.trim().split('\n').at(-1)).toMatch(/^flakeproof /)
    expect(existsSync(join(dir, 'out', 'rate.json'))).toBe(false)
  })
})

describe('long attributes are read, not refused', () => {
  it('a well-formed report with one 200 KB name attribute counts that test', async () => {
    const dir = tempDir()
    const name = 'n'.repeat(200 * 1024)
    writeFileSync(join(dir, 'r.xml'), `<testsuite name="s"><testcase classname="m" name="${name}"><failure message="x"/></testcase><testcase classname="m" name="short"/></testsuite>`)
    const result = await runCli(['ingest', '--junit', 'r.xml', '--out-dir', 'out'], { cwd: dir })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr).toBe('')
    expect(ids(join(dir, 'out')).map(([id, trials, failures]) => [String(id).length, trials, failures])).toEqual([
      // `m > ` + 204 800 characters.
      [4 + 200 * 1024, 1, 1],
      ['m > short'.length, 1, 0],
    ])
  })
})
