import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT, tempDir } from './utils.js'

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

/** A project with flakeproof installed as a package (`flakeproof/...` resolves to this build) and its runner linked in. */
export function project(files: Record<string, string>): string {
  const dir = tempDir('flakeproof-stress-')
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true })
    writeFileSync(join(dir, path), text)
  }
  mkdirSync(join(dir, 'node_modules'))
  symlinkSync(ROOT, join(dir, 'node_modules/flakeproof'))
  for (const name of ['vitest', 'jest']) symlinkSync(join(ROOT, 'node_modules', name), join(dir, 'node_modules', name))
  mkdirSync(join(dir, 'state'))
  return dir
}
