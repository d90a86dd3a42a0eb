import { spawnSync } from 'node:child_process'
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { type HostileCase, refusal, runCliIn, runHostileCase, VITEST_BIN, VITEST_CACHE, vitestProject } from '../hostile.js'
import { ROOT, settle, startCli, tempDir, waitFor } from '../utils.js'

/**
 * Where flakeproof writes (issue 19 item 4, and last turn's cases from output-safety.test.ts): never
 * through a symbolic link — an output folder, a folder on the way to an output file inside the
 * project, the history folder, the JUnit file — never outside the project unless asked, never into a
 * path that is a folder or a pipe, and every refusal comes before any trial or test.
 */

const JUNIT = join(ROOT, 'test/fixtures/junit/vitest.xml')
/** Another measurement, which a link named `L` points to: it must come out untouched. */
const otherMeasurement = (dir: string) => {
  mkdirSync(join(dir, 'other'))
  writeFileSync(join(dir, 'other/rate.json'), '{"keep": "me"}\n')
  writeFileSync(join(dir, 'other/facts.jsonl'), '{"trial": 1}\n')
  symlinkSync('other', join(dir, 'L'))
}
/** A trial command that leaves `ran` behind: it must not exist after a refusal. */
const MARKS = 'touch ran'
const LINK = 'is a symbolic link to other, and flakeproof never writes through one; give the folder itself, or a new one'

const LINKED_FOLDERS: HostileCase[] = [
  {
    name: 'investigate --out-dir L',
    scene: otherMeasurement,
    args: ['investigate', '--cmd', MARKS, '--fixed-cmd', 'true', '--trials', '2', '--slow-trials', '1', '--gap-ms', '0', '--out-dir', 'L'],
    code: 2,
    stderr: [refusal('investigate', `--out-dir L ${LINK}`)],
  },
  {
    name: 'repeat --out-dir L',
    scene: otherMeasurement,
    args: ['repeat', '--runs', '2', '--junit', 'r/run-{run}.xml', '--out-dir', 'L', '--', MARKS],
    code: 2,
    stderr: [refusal('repeat', `--out-dir L ${LINK}`)],
  },
  {
    name: 'ingest --out-dir L',
    scene: otherMeasurement,
    args: ['ingest', '--junit', JUNIT, '--out-dir', 'L'],
    code: 2,
    stderr: [refusal('ingest', `--out-dir L ${LINK}`)],
  },
  {
    name: 'measure --out L/rate.json (the file in a linked folder)',
    scene: otherMeasurement,
    args: ['measure', '--cmd', MARKS, '--trials', '2', '--out', 'L/rate.json'],
    code: 2,
    stderr: [refusal('measure', `--out L/rate.json: L ${LINK}`)],
  },
  {
    name: 'collect --out a/L/facts.jsonl (a link on the way)',
    scene: (dir) => {
      otherMeasurement(dir)
      mkdirSync(join(dir, 'a'))
      symlinkSync('../other', join(dir, 'a/L'))
    },
    args: ['collect', '--cmd', MARKS, '--trials', '2', '--out', 'a/L/facts.jsonl'],
    code: 2,
    stderr: [refusal('collect', '--out a/L/facts.jsonl: a/L is a symbolic link to ../other, and flakeproof never writes through one; give the folder itself, or a new one')],
  },
  {
    name: 'plan --out L/runs_needed.json',
    scene: otherMeasurement,
    args: ['plan', '--rate', '0.2', '--out', 'L/runs_needed.json'],
    code: 2,
    stderr: [refusal('plan', `--out L/runs_needed.json: L ${LINK}`)],
  },
]

/** Last turn's table (output-safety.test.ts), now with the exact line and the files around checked. */
const NOT_A_FILE: HostileCase[] = (
  [
    ['collect', 'folder', 'a folder'],
    ['measure', 'folder', 'a folder'],
    ['collect', 'link', 'a symbolic link'],
    ['measure', 'link', 'a symbolic link'],
    ['measure', 'fifo', 'a named pipe'],
  ] as const
).map(([command, name, kind]) => ({
  name: `${command} --out <${kind}>`,
  scene: (dir: string) => {
    writeFileSync(join(dir, 'target.json'), 'keep\n')
    symlinkSync('target.json', join(dir, 'link'))
    mkdirSync(join(dir, 'folder'))
    spawnSync('mkfifo', [join(dir, 'fifo')])
  },
  args: [command, '--cmd', MARKS, '--trials', '3', '--out', name],
  code: 2,
  stderr: [refusal(command, `--out ${name} is ${kind}, not a regular file, and flakeproof never writes through or replaces one; choose a path that is a regular file or does not exist yet`)],
}))

const LOCKS: HostileCase[] = [
  {
    name: 'a lock file holding 0 is no process: taken over',
    scene: (dir) => {
      mkdirSync(join(dir, 'lk'))
      writeFileSync(join(dir, 'lk/.flakeproof.lock'), '0\n')
    },
    args: ['ingest', '--junit', JUNIT, '--out-dir', 'lk'],
    code: 0,
    stderr: [],
    writes: ['lk'],
    after: (dir) => {
      expect(existsSync(join(dir, 'lk/rate.json'))).toBe(true)
      expect(existsSync(join(dir, 'lk/.flakeproof.lock'))).toBe(false)
    },
  },
]

// Each case is a CLI run in a folder of its own, judged on that folder alone: they run at once.
describe('no write through a symbolic link (commands)', { timeout: 60_000 }, () => {
  it.concurrent.each(LINKED_FOLDERS)('$name', async (c) => {
    await runHostileCase(c)
  })
})

describe('no write into what is not a regular file', { timeout: 60_000 }, () => {
  it.concurrent.each(NOT_A_FILE)('$name', async (c) => {
    await runHostileCase(c)
  })
})

describe('locks', { timeout: 60_000 }, () => {
  it.concurrent.each(LOCKS)('$name', async (c) => {
    await runHostileCase(c)
  })

  it.concurrent('two runs writing different files into one shared folder both run', async () => {
    const dir = tempDir('flakeproof-hostile-')
    mkdirSync(join(dir, 'shared'))
    // The first run's trial waits for `go`, so the second surely runs while the first holds its file.
    const first = startCli(['collect', '--cmd', `touch ${join(dir, 'started')}; until [ -e ${join(dir, 'go')} ]; do sleep 0.02; done`, '--trials', '1', '--out', join(dir, 'shared/a.jsonl')])
    const firstDone = settle(first)
    await waitFor('the first run started its trial', () => existsSync(join(dir, 'started')))
    const second = await runCliIn(dir, ['measure', '--cmd', 'true', '--trials', '1', '--out', 'shared/b.json'])
    expect([second.code, second.stderr]).toEqual([0, ''])
    // The same file is still one run at a time.
    const same = await runCliIn(dir, ['collect', '--cmd', MARKS, '--trials', '1', '--out', 'shared/a.jsonl'])
    expect(same.code).toBe(2)
    expect(same.stderr.trim().split('\n')).toEqual([
      refusal('collect', `--out shared/a.jsonl: another flakeproof run (pid ${first.pid}) is writing shared/a.jsonl (lock ${join(dir, 'shared/.flakeproof.a.jsonl.lock')}); wait for it to finish, or delete that file if no flakeproof run is using it`),
    ])
    // A run that writes the whole folder waits for every file's run: its files belong together.
    const whole = await runCliIn(dir, ['ingest', '--junit', JUNIT, '--out-dir', 'shared'])
    expect(whole.code).toBe(2)
    expect(whole.stderr).toContain(`another flakeproof run (pid ${first.pid}) is writing shared/a.jsonl`)
    writeFileSync(join(dir, 'go'), '')
    expect((await firstDone).code).toBe(0)
    expect(existsSync(join(dir, 'ran'))).toBe(false)
    expect(readdirSync(join(dir, 'shared')).sort()).toEqual(['a.jsonl', 'b.json'])
  })
})

// --- Vitest: the plugin (flakeproof vitest) and the reporter in a config ---

/** A test that leaves `ran` behind when it runs: a refusal must come before it. */
const TESTS = {
  'tests/a.test.ts': [
    "import { writeFileSync } from 'node:fs'",
    "import { expect, test } from 'vitest'",
    "test('adds', () => {",
    "  writeFileSync(new URL('../ran', import.meta.url), 'ran')",
    '  expect(1 + 1).toBe(2)',
    '})',
    '',
  ].join('\n'),
}
const vitest = (...flags: string[]) => ['vitest', '--flaky-repeat', '2', ...flags]

const VITEST_CASES: HostileCase[] = [
  // Both once ran every test, then said "no files written" and left .run-<pid>/ behind.
  ...['facts.jsonl', 'rate.json'].map((name) => ({
    name: `--flaky-out o where o/${name} is a folder: refused before any test, no .run-<pid>/ left`,
    scene: (dir: string) => {
      vitestProject(dir, TESTS)
      mkdirSync(join(dir, 'o', name), { recursive: true })
    },
    args: vitest('--flaky-out', 'o'),
    code: 2,
    stderr: (dir: string) => [
      refusal('vitest', `outDir (--flaky-out) ${join(dir, 'o', name)} is a folder, not a regular file, and flakeproof never writes through or replaces one; choose a path that is a regular file or does not exist yet`),
    ],
    writes: [VITEST_CACHE],
  })),
  {
    name: '--flaky-out L, a link to another measurement inside the project',
    scene: (dir) => {
      vitestProject(dir, TESTS)
      otherMeasurement(dir)
    },
    args: vitest('--flaky-out', 'L'),
    code: 2,
    stderr: [refusal('vitest', `outDir (--flaky-out) L ${LINK}`)],
    writes: [VITEST_CACHE],
  },
  {
    name: '--flaky-junit ../x.xml outside the project, as --flaky-out would be',
    scene: (dir) => vitestProject(join(dir, 'p'), TESTS),
    cwd: 'p',
    args: vitest('--flaky-junit', '../x.xml'),
    code: 2,
    stderr: (dir) => [
      refusal(
        'vitest',
        `junit (--flaky-junit) "../x.xml" resolves to ${join(dir, 'x.xml')}, outside the project root ${join(dir, 'p')}; choose a file inside it, or add --flaky-out-anywhere (outAnywhere: true) to write there on purpose`,
      ),
    ],
    writes: [`p/${VITEST_CACHE}`],
  },
  {
    name: '--flaky-junit ../x.xml with --flaky-out-anywhere: written there, on purpose',
    scene: (dir) => vitestProject(join(dir, 'p'), TESTS),
    cwd: 'p',
    args: vitest('--flaky-junit', '../x.xml', '--flaky-out-anywhere'),
    code: 0,
    stderr: [],
    writes: [`p/${VITEST_CACHE}`, 'p/.flakeproof', 'p/ran', 'x.xml'],
    after: (dir) => expect(readFileSync(join(dir, 'x.xml'), 'utf8')).toContain('<testsuite name="flakeproof"'),
  },
  {
    name: '--flaky-junit j.xml, a link: refused before any test',
    scene: (dir) => {
      vitestProject(dir, TESTS)
      writeFileSync(join(dir, 'target.xml'), 'keep\n')
      symlinkSync('target.xml', join(dir, 'j.xml'))
    },
    args: vitest('--flaky-junit', 'j.xml'),
    code: 2,
    stderr: (dir) => [
      refusal('vitest', `junit (--flaky-junit) ${join(dir, 'j.xml')} is a symbolic link, not a regular file, and flakeproof never writes through or replaces one; choose a path that is a regular file or does not exist yet`),
    ],
    writes: [VITEST_CACHE],
  },
  {
    name: 'an everyday run with .flakeproof/history a link outside the project: history not written through it',
    scene: (dir) => {
      vitestProject(join(dir, 'p'), {
        ...TESTS,
        'vitest.config.mjs': `export default { test: { include: ['tests/**/*.test.ts'], reporters: ['default', [${JSON.stringify(join(ROOT, 'dist/plugin/vitest/reporter.js'))}, {}]] } }\n`,
      })
      mkdirSync(join(dir, 'elsewhere'))
      mkdirSync(join(dir, 'p/.flakeproof'))
      symlinkSync('../../elsewhere', join(dir, 'p/.flakeproof/history'))
    },
    cwd: 'p',
    bin: VITEST_BIN,
    args: ['run'],
    code: 0,
    stderr: ['[flakeproof] history not recorded: .flakeproof/history is a symbolic link to ../../elsewhere, and flakeproof never writes through one; give the folder itself, or a new one'],
    // Vitest bundles a config file into node_modules/.vite-temp.
    writes: [`p/${VITEST_CACHE}`, 'p/node_modules/.vite-temp', 'p/ran', 'p/.flakeproof'],
    after: (dir) => {
      expect(lstatSync(join(dir, 'p/.flakeproof/history')).isSymbolicLink()).toBe(true)
      expect(readdirSync(join(dir, 'elsewhere'))).toEqual([])
    },
  },
]

/**
 * A full disk: the output folder is a 48 KiB tmpfs (root may mount one; elsewhere this is skipped).
 * Each of the loud test's 20 repetitions prints 4000 characters, which facts.jsonl keeps, so its
 * lines cannot all be written, while the quiet test's can.
 */
const LOUD = {
  'tests/a.test.ts': TESTS['tests/a.test.ts'],
  'tests/loud.test.ts': ["import { test } from 'vitest'", "test('prints a lot', () => {", "  console.log('x'.repeat(4000))", '})', ''].join('\n'),
}
const canMount = (() => {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return false
  const probe = tempDir('flakeproof-mount-')
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=48k', 'tmpfs', probe]).status === 0
  if (mounted) spawnSync('umount', [probe])
  return mounted
})()

describe.skipIf(!canMount)('a disk that fills up during a measurement', { timeout: 60_000 }, () => {
  it('says once which files were written and which were not, and leaves no .run-<pid>/', async () => {
    const dir = tempDir('flakeproof-hostile-')
    vitestProject(dir, LOUD)
    mkdirSync(join(dir, 'out'))
    expect(spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=48k', 'tmpfs', join(dir, 'out')]).status).toBe(0)
    try {
      const result = await runCliIn(dir, ['vitest', '--flaky-repeat', '20', '--flaky-out', 'out', '--no-file-parallelism'])
      const ours = `${result.stdout}\n${result.stderr}`.split('\n').filter((line) => line.includes('[flakeproof]') && line.includes('written'))
      expect(ours, result.stdout + result.stderr).toEqual([expect.stringMatching(/^\[flakeproof\] not all results were written \(ENOSPC\): .*written: .*; not written: .+$/)])
      expect(readdirSync(join(dir, 'out')).filter((name) => name.startsWith('.run-'))).toEqual([])
      expect(result.stderr).not.toMatch(/\n\s+at /)
    } finally {
      spawnSync('umount', [join(dir, 'out')])
    }
  })
})

describe('no write through a link or outside the project (Vitest)', { timeout: 120_000 }, () => {
  it.concurrent.each(VITEST_CASES)('$name', async (c) => {
    await runHostileCase(c)
  })
})
