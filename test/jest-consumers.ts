import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { CACHE, hash, installAtomically, installFlakeproof, NPM_INSTALL, packTarball, run } from './consumers.js'
import { ROOT } from './utils.js'

/** The Jest versions a user may run flakeproof on: the last 29 and the current 30. The README lists these. */
export const JEST_CONSUMER_MATRIX = ['29.7.0', '30.5.2'] as const

/** The fixture's tests, as CommonJS and as native ES modules (Jest's `--experimental-vm-modules`). */
export type ModuleKind = 'cjs' | 'esm'

/**
 * A fresh project with this Jest and the packed flakeproof, as a user installs them, its config
 * naming `flakeproof/jest/reporter` and `flakeproof/jest/setup` by package name. Jest is installed
 * once per repository folder, version and module kind (cache `jest-<version>-<kind>-<key>`, apart from
 * the Vitest consumers), then kept; flakeproof is installed from the new tarball whenever it changes.
 */
export async function prepareJestConsumer(version: string, kind: ModuleKind): Promise<string> {
  const packed = await packTarball()
  const { dependencies } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies?: unknown }
  const dir = join(CACHE, `jest-${version}-${kind}-${hash([ROOT, version, kind, dependencies])}`)
  const kept = existsSync(join(dir, 'node_modules/jest/package.json'))
  if (!kept) {
    await installAtomically(dir, async (staging) => {
      writeFileSync(join(staging, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: kind === 'esm' ? 'module' : 'commonjs' }))
      cpSync(packed, join(staging, 'flakeproof.tgz'))
      await run('npm', [...NPM_INSTALL, '-D', '-E', `jest@${version}`, './flakeproof.tgz'], { cwd: staging })
    })
  }
  await installFlakeproof(dir, packed, !kept)
  for (const out of ['tests', '.flakeproof', 'wrapped']) rmSync(join(dir, out), { recursive: true, force: true })
  const fixture = join(ROOT, 'test/fixtures/jest-flaky')
  cpSync(join(fixture, 'tests'), join(dir, 'tests'), { recursive: true })
  for (const file of ['user-reporter.js', 'user-setup.js']) cpSync(join(fixture, file), join(dir, file.replace('.js', '.cjs')))
  const common = "testEnvironment: 'node', testMatch: ['**/tests/*.test.js']"
  // Jest 29 gives setup files no circus handler list: its config names flakeproof's environment too.
  const environment = version.startsWith('29.') ? ", testEnvironment: 'flakeproof/jest/environment', testEnvironmentOptions: { flakeproofBase: 'node' }" : ''
  writeFileSync(
    join(dir, 'jest.config.cjs'),
    `module.exports = { ${common}${environment}, reporters: ['default', ['flakeproof/jest/reporter', {}]], setupFilesAfterEnv: ['<rootDir>/user-setup.cjs', 'flakeproof/jest/setup'] }\n`,
  )
  writeFileSync(join(dir, 'jest.plain.config.cjs'), `module.exports = { ${common}, reporters: ['default', '<rootDir>/user-reporter.cjs'], setupFilesAfterEnv: ['<rootDir>/user-setup.cjs'] }\n`)
  if (kind === 'esm') toEsm(join(dir, 'tests'))
  return dir
}

// --- internal ---

/** The fixture's CommonJS tests as ES modules: `require` becomes `import`, with `jest` from @jest/globals. */
function toEsm(tests: string): void {
  for (const name of ['counter.test.js', 'behaviours.test.js', 'retry.test.js', 'throws.test.js', 'after-all.test.js']) {
    const path = join(tests, name)
    const source = readFileSync(path, 'utf8')
    const body = source.replace("const { describe, expect, test } = require('@jest/globals')\n", '')
    writeFileSync(path, `import { describe, expect, jest, test } from '@jest/globals'\n${body}`)
  }
}
