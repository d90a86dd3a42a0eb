import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { keptInstall, keptProject, npmInstall, packTarball } from './consumers.js'
import { ROOT } from './utils.js'

/** The Jest versions a user may run flakeproof on: the last 29 and the current 30. The README lists these. */
export const JEST_CONSUMER_MATRIX = ['29.7.0', '30.5.2'] as const

/** The fixture's tests, as CommonJS and as native ES modules (Jest's `--experimental-vm-modules`). */
export type ModuleKind = 'cjs' | 'esm'

/**
 * A fresh project with this Jest and the packed flakeproof, as a user installs them, its config
 * naming `flakeproof/jest/reporter` and `flakeproof/jest/runner` by package name, and the projects
 * fixture (test/fixtures/jest-projects) in `projects/`, the CI fixture (test/fixtures/jest-ci) in `ci/`,
 * the short endings' (jest-truth, jest-crash) in `truth/` and `crash/`: a project of its own per version
 * and module kind (`jest-<version>-<kind>-<key>`, apart from the Vitest consumers), its node_modules
 * this Jest's one install (below). Output folders are emptied.
 */
export async function prepareJestConsumer(version: string, kind: ModuleKind): Promise<string> {
  const dir = await project(version, kind, kind === 'esm' ? 'module' : 'commonjs')
  for (const out of ['tests', '.flakeproof', 'wrapped', 'projects', 'ci', 'truth', 'crash']) rmSync(join(dir, out), { recursive: true, force: true })
  const fixture = join(ROOT, 'test/fixtures/jest-flaky')
  cpSync(join(fixture, 'tests'), join(dir, 'tests'), { recursive: true })
  for (const file of ['user-reporter.js', 'user-setup.js']) cpSync(join(fixture, file), join(dir, file.replace('.js', '.cjs')))
  const common = "testEnvironment: 'node', roots: ['<rootDir>/tests'], testMatch: ['**/tests/*.test.js']"
  // flakeproof's runner wraps circus on Jest 29 and 30 alike; the reporter first caps failure text.
  writeFileSync(
    join(dir, 'jest.config.cjs'),
    `module.exports = { ${common}, testRunner: 'flakeproof/jest/runner', reporters: [['flakeproof/jest/reporter', {}], 'default'], setupFilesAfterEnv: ['<rootDir>/user-setup.cjs'] }\n`,
  )
  writeFileSync(join(dir, 'jest.plain.config.cjs'), `module.exports = { ${common}, reporters: ['default', '<rootDir>/user-reporter.cjs'], setupFilesAfterEnv: ['<rootDir>/user-setup.cjs'] }\n`)
  // Two projects with setup files of their own, one file run by both, one whose docblock names its environment.
  const projects = join(ROOT, 'test/fixtures/jest-projects')
  for (const part of ['setup', 'tests', 'custom-environment.js']) cpSync(join(projects, part), join(dir, 'projects', part), { recursive: true })
  writeFileSync(join(dir, 'projects/package.json'), JSON.stringify({ name: 'projects', private: true, type: 'commonjs' }))
  writeFileSync(join(dir, 'projects/jest.config.js'), readFileSync(join(projects, 'jest.config.js'), 'utf8'))
  // The CI fixture (test/fixtures/jest-ci) in `ci/`, for rounds, conditions, budget, JUnit and enforcement.
  const ci = join(ROOT, 'test/fixtures/jest-ci')
  for (const part of ['tests', 'jest.config.js', 'package.json']) cpSync(join(ci, part), join(dir, 'ci', part), { recursive: true })
  // Everyday runs' history: the reporter by its package name, as a user's config names it.
  writeFileSync(join(dir, 'ci/jest.reporter.config.js'), "module.exports = { testEnvironment: 'node', testMatch: ['<rootDir>/tests/*.test.js'], reporters: ['default', ['flakeproof/jest/reporter', {}]] }\n")
  // Runs that end short (test/fixtures/jest-truth, jest-crash): a copy's process.exit(0), a killed worker.
  for (const name of ['truth', 'crash']) {
    for (const part of ['tests', 'jest.config.js', 'package.json']) cpSync(join(ROOT, `test/fixtures/jest-${name}`, part), join(dir, name, part), { recursive: true })
  }
  if (kind === 'esm') toEsm(join(dir, 'tests'))
  return dir
}

/**
 * A fresh CommonJS project with this Jest, its jest-environment-jsdom, ts-jest, babel-jest's preset,
 * @swc/jest and the packed flakeproof, and the transforms fixture (test/fixtures/jest-transforms) in
 * a folder of its own (`jest-<version>-transforms-<key>`).
 */
export async function prepareJestTransformsConsumer(version: string): Promise<string> {
  const dir = await project(version, 'transforms', 'commonjs')
  const fixture = join(ROOT, 'test/fixtures/jest-transforms')
  for (const part of ['ts', 'babel', 'swc', '.flakeproof']) rmSync(join(dir, part), { recursive: true, force: true })
  for (const part of ['ts', 'babel', 'swc', 'jest.config.js']) cpSync(join(fixture, part), join(dir, part), { recursive: true })
  return dir
}

// --- internal ---

/**
 * What every Jest project here installs beside Jest: its jsdom environment and the transforms the
 * transforms fixture needs, at versions that support Jest 29 and 30 alike.
 */
const PACKAGES = (version: string) => [`jest@${version}`, `jest-environment-jsdom@${version}`, 'ts-jest@29.4.15', 'typescript@5.9.3', '@babel/preset-env@7.29.14', '@swc/jest@0.2.39', '@swc/core@1.16.22']

/**
 * A project of this Jest (`jest-<version>-<name>-<key>`) with its own package.json of `type`: its
 * node_modules hard-link the files of the version's one install (keptProject), as npm would have laid
 * them out (npm installs the same tree whatever the `type`), so three projects cost one npm install,
 * and none on a machine that has it already (keptInstall).
 */
async function project(version: string, name: string, type: 'module' | 'commonjs'): Promise<string> {
  const [packed, install] = await Promise.all([packTarball(), installed(version)])
  return keptProject(`jest-${version}-${name}`, install, { name: 'consumer', private: true, type }, packed)
}

/** Each version's install, once per test file (the only file that installs Jest projects). */
const installs = new Map<string, Promise<string>>()

/**
 * Jest and PACKAGES (`jest-<version>-install-<key>`) with the packed flakeproof (for its dependencies: the
 * key covers them), installed once then kept. No test runs here: each project unpacks flakeproof's
 * newest tarball over its own copy.
 */
function installed(version: string): Promise<string> {
  let install = installs.get(version)
  if (!install) {
    install = (async () => {
      const packed = await packTarball()
      const pkg = { name: 'consumer', private: true, type: 'commonjs' }
      return keptInstall(`jest-${version}`, [PACKAGES(version), pkg], async (staging) => {
        writeFileSync(join(staging, 'package.json'), JSON.stringify(pkg))
        cpSync(packed, join(staging, 'flakeproof.tgz'))
        await npmInstall(['-D', '-E', ...PACKAGES(version), './flakeproof.tgz'], staging)
      })
    })()
    installs.set(version, install)
  }
  return install
}

/** The fixture's CommonJS tests as ES modules: `require` becomes `import`, with `jest` from @jest/globals. */
function toEsm(tests: string): void {
  for (const name of ['counter.test.js', 'behaviours.test.js', 'retry.test.js', 'throws.test.js', 'after-all.test.js']) {
    const path = join(tests, name)
    const source = readFileSync(path, 'utf8')
    const body = source.replace("const { describe, expect, test } = require('@jest/globals')\n", '')
    writeFileSync(path, `import { describe, expect, jest, test } from '@jest/globals'\n${body}`)
  }
}
