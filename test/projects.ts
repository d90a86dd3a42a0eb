import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { BIN, ROOT, tempDir } from './utils.js'

/** The fixture test that fails every fourth call while its marker file exists (below). */
export const FLAKY = 'tests/stress.test.js > fails every fourth call under its marker'

/** The fixture's test file: CommonJS for Jest, ES modules for Vitest (its globals on), the same test. */
export function stressTest(kind: 'esm' | 'cjs'): string {
  const imports =
    kind === 'esm'
      ? ["import { existsSync, readFileSync, writeFileSync } from 'node:fs'", "import { join } from 'node:path'"]
      : ["const { existsSync, readFileSync, writeFileSync } = require('node:fs')", "const { join } = require('node:path')"]
  return [
    ...imports,
    '',
    '// Calls counted across runs in FIXTURE_STATE; every fourth fails while FIXTURE_MARKER exists.',
    'function call(name) {',
    '  const file = join(process.env.FIXTURE_STATE, name)',
    "  const n = (existsSync(file) ? Number(readFileSync(file, 'utf8')) : 0) + 1",
    '  writeFileSync(file, String(n))',
    '  return n',
    '}',
    '',
    "test('fails every fourth call under its marker', () => {",
    "  const n = call('marked')",
    "  if (process.env.FIXTURE_BREAK) throw new Error('BROKEN_UNDER_LOAD: fails every attempt')",
    '  if (existsSync(process.env.FIXTURE_MARKER) && n % 4 === 0) throw new Error(`FAILS_UNDER_LOAD: call ${n}`)',
    '})',
    '',
    "test('always passes', () => {",
    "  call('steady')",
    '})',
    '',
  ].join('\n')
}

/**
 * A copy of test/fixtures/<name> in a temporary folder, the repository's node_modules linked in: for a
 * file whose runs must not meet another file's in the same fixture (each run's marker,
 * `.flakeproof/running`, is in the project it runs in), or that change the fixture's files.
 */
export function fixtureCopy(name: string): string {
  const dir = tempDir()
  cpSync(join(ROOT, 'test/fixtures', name), dir, { recursive: true })
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'))
  return dir
}

/** A project with flakeproof installed as a package (`flakeproof/...` resolves to a copy of this build) and its runner linked in. */
export function project(files: Record<string, string>): string {
  const dir = tempDir('flakeproof-stress-')
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true })
    writeFileSync(join(dir, path), text)
  }
  mkdirSync(join(dir, 'node_modules'), { recursive: true })
  symlinkSync(installedFlakeproof(), join(dir, 'node_modules/flakeproof'))
  for (const name of ['vitest', 'jest']) symlinkSync(join(ROOT, 'node_modules', name), join(dir, 'node_modules', name))
  mkdirSync(join(dir, 'state'))
  return dir
}

/**
 * flakeproof as `npm ci` installs it from the registry: the files its package.json ships (`files`:
 * dist) and package.json, in a folder under node_modules, its dependencies beside it (here the
 * repository's, linked). Made once per test file, from the build the e2e tests run. Not a link to
 * the repository: Vite treats a package outside node_modules as the project's own source and runs
 * its every module through its transform (about 1.5 s of CPU per Vitest run that loads
 * flakeproof/reporter), as it never does for an installed package.
 */
let installed: string | undefined
export function installedFlakeproof(): string {
  if (installed !== undefined) return installed
  const dir = join(tempDir('flakeproof-installed-'), 'node_modules/flakeproof')
  mkdirSync(dir, { recursive: true })
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[] }
  for (const shipped of ['package.json', ...manifest.files]) cpSync(join(ROOT, shipped), join(dir, shipped), { recursive: true })
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'))
  installed = dir
  return dir
}

/**
 * The CLI of that copy, as `npx flakeproof` finds it in a project: the one whose reporter and runner the
 * project's config loads by name. A CLI of another copy hands its commands to this one there
 * (src/cli/project-copy.ts, test/e2e/project-copy.test.ts); calling this one skips that step.
 */
export function installedBin(): string {
  return join(installedFlakeproof(), relative(ROOT, BIN))
}
