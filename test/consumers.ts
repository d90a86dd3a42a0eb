import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { ROOT, tempDir, VITEST_FIXTURE } from './utils.js'

/**
 * The Vitest versions a user may run flakeproof on, each with the Vite it installs with and the Node
 * it runs on (Vitest 5 needs Node >= 22.12: the test installs Node 24 from the npm registry).
 * The README's matrix lists these same versions.
 */
export const CONSUMER_MATRIX: readonly ConsumerVersion[] = [
  { vitest: '3.2.7', vite: '7.3.8' },
  { vitest: '4.0.18', vite: '7.3.8' },
  { vitest: '4.1.12', vite: '8.3.8' },
  { vitest: '5.1.2', vite: '8.3.8', node: '24.22.3' },
]

export interface ConsumerVersion {
  vitest: string
  vite: string
  /** A Node version to install and run the project on; the one running the tests when absent. */
  node?: string
}

export interface Consumer {
  /** The project: package.json, the fixture's tests, node_modules with vitest, vite and flakeproof. */
  dir: string
  /** The Node binary that runs it. */
  node: string
}

export const run = promisify(execFile)
export const NPM_INSTALL = ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error']

/** Installs are kept between runs under the system's temp folder, never under the repository (its node_modules would be found first). */
export const CACHE = join(tmpdir(), 'flakeproof-consumers')

let tarball: Promise<string> | undefined

/** Packs the built package once per test file, as `npm publish` would. */
export function packTarball(): Promise<string> {
  tarball ??= (async () => {
    const packs = tempDir('flakeproof-pack-')
    await run('npm', ['pack', '--pack-destination', packs], { cwd: ROOT })
    return join(packs, readdirSync(packs)[0] as string)
  })()
  return tarball
}

/**
 * A fresh project with this Vitest, its Vite and the packed flakeproof, as a user installs them,
 * plus `extra` packages (`name@version`: browser mode's provider). Vitest, Vite and the extras are
 * installed once per repository folder and set of versions (the key), then kept; flakeproof is
 * reinstalled from the new tarball every time. Output folders are emptied.
 */
export async function prepareConsumer(version: ConsumerVersion, extra: readonly string[] = []): Promise<Consumer> {
  const [node, packed] = await Promise.all([version.node ? installNode(version.node) : process.execPath, packTarball()])
  const { dependencies } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies?: unknown }
  // Without extras, the key (and so the folder) is what it was before extras existed: installs are kept.
  const key = hash(extra.length === 0 ? [ROOT, version.vitest, version.vite, dependencies] : [ROOT, version.vitest, version.vite, dependencies, extra])
  const dir = join(CACHE, `vitest-${version.vitest}${extra.length === 0 ? '' : '-browser'}-${key}`)
  if (existsSync(join(dir, 'node_modules/vitest/package.json'))) {
    cpSync(packed, join(dir, 'flakeproof.tgz'))
    await run('npm', [...NPM_INSTALL, '-D', '-E', './flakeproof.tgz'], { cwd: dir })
  } else {
    await installAtomically(dir, async (staging) => {
      writeFileSync(join(staging, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }))
      cpSync(packed, join(staging, 'flakeproof.tgz'))
      await run('npm', [...NPM_INSTALL, '-D', '-E', `vitest@${version.vitest}`, `vite@${version.vite}`, ...extra, './flakeproof.tgz'], { cwd: staging })
    })
  }
  for (const out of ['tests', '.flakeproof', 'alone', 'wrapped']) rmSync(join(dir, out), { recursive: true, force: true })
  cpSync(join(VITEST_FIXTURE, 'tests'), join(dir, 'tests'), { recursive: true })
  writeFileSync(
    join(dir, 'vitest.config.ts'),
    `import { flakeproof } from 'flakeproof/vitest'\nimport { defineConfig } from 'vitest/config'\n\nexport default defineConfig({ plugins: [flakeproof()], test: { include: ['tests/**/*.test.ts'] } })\n`,
  )
  writeFileSync(
    join(dir, 'vitest.reporter.config.ts'),
    `import { defineConfig } from 'vitest/config'\n\nexport default defineConfig({ test: { include: ['tests/**/*.test.ts'], reporters: ['default', ['flakeproof/reporter', { outDir: 'alone' }]] } })\n`,
  )
  writeFileSync(join(dir, 'vitest.plain.config.ts'), `import { defineConfig } from 'vitest/config'\n\nexport default defineConfig({ test: { include: ['tests/**/*.test.ts'] } })\n`)
  return { dir, node }
}

/**
 * Copies a fixture project of test/fixtures into the consumer (under its own name), its configs
 * (`vitest*.config.ts`) importing the plugin by its package name instead of from dist/. Returns the
 * copy's folder.
 */
export function copyFixture(consumer: Consumer, fixture: string): string {
  const to = join(consumer.dir, fixture)
  rmSync(to, { recursive: true, force: true })
  cpSync(join(ROOT, 'test/fixtures', fixture), to, { recursive: true, filter: (from) => !from.includes('node_modules') && !from.includes('.flakeproof') })
  for (const name of readdirSync(to).filter((n) => /^vitest.*\.config\.ts$/.test(n))) {
    const config = join(to, name)
    writeFileSync(config, readFileSync(config, 'utf8').replace("'../../../dist/plugin/vitest/plugin.js'", "'flakeproof/vitest'"))
  }
  return to
}

/** The official Node binary as the npm package `node-<platform>-<arch>` ships it, installed once. */
async function installNode(version: string): Promise<string> {
  const name = `node-${process.platform}-${process.arch}`
  const dir = join(CACHE, `${name}-${version}`)
  const binary = join(dir, 'node_modules', name, 'bin', 'node')
  if (!existsSync(binary)) {
    await installAtomically(dir, async (staging) => {
      writeFileSync(join(staging, 'package.json'), JSON.stringify({ name: 'node-binary', private: true }))
      await run('npm', [...NPM_INSTALL, '-E', `${name}@${version}`], { cwd: staging })
    })
  }
  return binary
}

/** Installs into a staging folder and moves it in place, so an interrupted install is never reused. */
export async function installAtomically(dir: string, install: (staging: string) => Promise<void>): Promise<void> {
  mkdirSync(CACHE, { recursive: true })
  const staging = `${dir}.staging-${process.pid}`
  rmSync(staging, { recursive: true, force: true })
  mkdirSync(staging)
  try {
    await install(staging)
    rmSync(dir, { recursive: true, force: true })
    renameSync(staging, dir)
  } finally {
    rmSync(staging, { recursive: true, force: true })
  }
}

export function hash(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 12)
}
