import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { promisify } from 'node:util'
import { networkEnv } from './extra-ca-certs.js'
import { ROOT, tempDir, VITEST_FIXTURE } from './utils.js'

const { devDependencies } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> }
/** The Playwright that drives Debian's Chromium in browser mode: the repository's own. */
const PLAYWRIGHT = `playwright@${devDependencies.playwright}`

/**
 * The Vitest versions a user may run flakeproof on, each with the Vite it installs with and the Node
 * it runs on (Vitest 5 needs Node >= 22.12: the test installs Node 24 from the npm registry), and
 * browser mode's packages where they install here: 3.2 ships the provider in `@vitest/browser`, 4.1
 * and 5 in `@vitest/browser-playwright`. The README's matrix lists these same versions.
 */
export const CONSUMER_MATRIX: readonly ConsumerVersion[] = [
  { vitest: '3.2.7', vite: '7.3.8', browser: ['@vitest/browser@3.2.7', PLAYWRIGHT] },
  { vitest: '4.0.18', vite: '7.3.8' },
  { vitest: '4.1.12', vite: '8.3.8', browser: ['@vitest/browser-playwright@4.1.12', PLAYWRIGHT] },
  { vitest: '5.1.2', vite: '8.3.8', node: '24.22.3', browser: ['@vitest/browser-playwright@5.1.2', PLAYWRIGHT] },
]

export interface ConsumerVersion {
  vitest: string
  vite: string
  /** A Node version to install and run the project on; the one running the tests when absent. */
  node?: string
  /** Browser mode's packages (`name@version`), installed in the same project: a user with browser mode has both. */
  browser?: readonly string[]
}

export interface Consumer {
  /** The project: package.json, the fixture's tests, node_modules with vitest, vite and flakeproof. */
  dir: string
  /** The Node binary that runs it. */
  node: string
}

export const run = promisify(execFile)
const NPM_INSTALL = ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error']

/** `npm install <args>` in `cwd`, the one way the suite goes to the registry (with the machine's certificates: test/extra-ca-certs.ts). */
export function npmInstall(args: string[], cwd: string): Promise<unknown> {
  return run('npm', [...NPM_INSTALL, ...args], { cwd, env: networkEnv() })
}

/** Installs are kept between runs under the system's temp folder, never under the repository (its node_modules would be found first). */
const CACHE = join(tmpdir(), 'flakeproof-consumers')

let tarball: Promise<string> | undefined

/**
 * The built package packed as `npm publish` would ship it, once for its contents: kept under CACHE
 * by a hash of what npm packs (package.json, README, LICENSE, its `files`), so every test file of a
 * run, and every run of the same build, installs the same tarball without packing it again.
 */
export function packTarball(): Promise<string> {
  tarball ??= (async () => {
    pruneKept()
    const path = join(CACHE, `flakeproof-${packedContentKey()}.tgz`)
    if (existsSync(path)) return path
    const packs = tempDir('flakeproof-pack-')
    await run('npm', ['pack', '--pack-destination', packs], { cwd: ROOT })
    mkdirSync(CACHE, { recursive: true })
    // Two files may pack at once: each moves in its own copy of the same bytes.
    const mine = `${path}.${process.pid}`
    cpSync(join(packs, readdirSync(packs)[0] as string), mine)
    renameSync(mine, path)
    // Older builds' tarballs go after a day: another checkout's run may be installing one now.
    for (const old of readdirSync(CACHE).filter((name) => /^flakeproof-[0-9a-f]{12}\.tgz$/.test(name))) {
      if (Date.now() - statSync(join(CACHE, old)).mtimeMs > 86_400_000) rmSync(join(CACHE, old), { force: true })
    }
    return path
  })()
  return tarball
}

/**
 * The packed flakeproof, unpacked over a kept project's node_modules/flakeproof as npm would put it,
 * its bin made executable: npm installing the tarball again would resolve the whole tree for one
 * package, and the install's key covers flakeproof's dependencies, so nothing else would change. A
 * project that already holds this very tarball is left as it is.
 */
async function installFlakeproof(dir: string, packed: string): Promise<void> {
  const marker = join(dir, '.flakeproof-tarball')
  if (existsSync(marker) && readFileSync(marker, 'utf8') === basename(packed)) return
  const target = join(dir, 'node_modules/flakeproof')
  rmSync(target, { recursive: true, force: true })
  mkdirSync(target, { recursive: true })
  await run('tar', ['-xzf', packed, '-C', target, '--strip-components=1'])
  const { bin } = JSON.parse(readFileSync(join(target, 'package.json'), 'utf8')) as { bin?: Record<string, string> }
  for (const file of Object.values(bin ?? {})) chmodSync(join(target, file), 0o755)
  writeFileSync(marker, basename(packed))
}

/**
 * A fresh project with this Vitest, its Vite, browser mode's packages if any and the packed
 * flakeproof, as a user installs them: a project of this repository's (keptProject) over the
 * version's one install, shared by every checkout on the machine (keptInstall). Output folders are
 * emptied.
 */
export async function prepareConsumer(version: ConsumerVersion): Promise<Consumer> {
  const [node, packed] = await Promise.all([version.node ? installNode(version.node) : process.execPath, packTarball()])
  const pkg = { name: 'consumer', private: true, type: 'module' }
  const packages = [`vitest@${version.vitest}`, `vite@${version.vite}`, ...(version.browser ?? [])]
  const install = await keptInstall(`vitest-${version.vitest}`, [packages, pkg], async (staging) => {
    writeFileSync(join(staging, 'package.json'), JSON.stringify(pkg))
    cpSync(packed, join(staging, 'flakeproof.tgz'))
    await npmInstall(['-D', '-E', ...packages, './flakeproof.tgz'], staging)
  })
  const dir = await keptProject(`vitest-${version.vitest}`, install, pkg, packed)
  for (const out of ['tests', '.flakeproof', 'alone', 'wrapped']) rmSync(join(dir, out), { recursive: true, force: true })
  cpSync(join(VITEST_FIXTURE, 'tests'), join(dir, 'tests'), { recursive: true })
  writeFileSync(
    join(dir, 'vitest.config.ts'),
    `import { flakeproof } from 'flakeproof/vitest'\nimport { defineConfig } from 'vitest/config'\n\nexport default defineConfig({ plugins: [flakeproof()], test: { include: ['tests/**/*.test.ts'] } })\n`,
  )
  // The configs without the plugin run the fixture's three files in one worker (`isolate: false`, one fork instead of
  // three per run): what their tests assert (the wrapper adding the plugin, the reporter found by its package name)
  // is not about workers, the counters are each file's own, and the plugin's config above keeps Vitest's default, so
  // every version still measures and proves through a fork per file (and test/fixtures/vitest-trust's crash needs one).
  writeFileSync(
    join(dir, 'vitest.reporter.config.ts'),
    `import { defineConfig } from 'vitest/config'\n\nexport default defineConfig({ test: { include: ['tests/**/*.test.ts'], isolate: false, reporters: ['default', ['flakeproof/reporter', { outDir: 'alone' }]] } })\n`,
  )
  writeFileSync(join(dir, 'vitest.plain.config.ts'), `import { defineConfig } from 'vitest/config'\n\nexport default defineConfig({ test: { include: ['tests/**/*.test.ts'], isolate: false } })\n`)
  return { dir, node }
}

/**
 * Copies a fixture project of test/fixtures into the consumer (under its own name): its configs
 * import the plugin by its package name, which there is the consumer's installed flakeproof. Returns
 * the copy's folder.
 */
export function copyFixture(consumer: Consumer, fixture: string): string {
  const to = join(consumer.dir, fixture)
  rmSync(to, { recursive: true, force: true })
  cpSync(join(ROOT, 'test/fixtures', fixture), to, { recursive: true, filter: (from) => !from.includes('node_modules') && !from.includes('.flakeproof') })
  return to
}

/** The official Node binary as the npm package `node-<platform>-<arch>` ships it, installed once. */
async function installNode(version: string): Promise<string> {
  const name = `node-${process.platform}-${process.arch}`
  const dir = join(CACHE, `${name}-${version}`)
  const binary = join(dir, 'node_modules', name, 'bin', 'node')
  await installAtomically(dir, join('node_modules', name, 'bin', 'node'), async (staging) => {
    writeFileSync(join(staging, 'package.json'), JSON.stringify({ name: 'node-binary', private: true }))
    await npmInstall(['-E', `${name}@${version}`], staging)
  })
  touch(dir)
  return binary
}

/**
 * npm packages installed once under CACHE and kept (`<name>-install-<key>`), keyed by what they are
 * (`what`: the packages and the project's package.json; npm's flags; flakeproof's dependencies, which
 * the install resolves beside them), not by the repository: a later run, a fresh clone's CI run or
 * another checkout on this machine finds them installed. Nothing runs in an install and nothing
 * writes to it: projects hard-link its files (keptProject).
 */
export async function keptInstall(name: string, what: unknown, install: (staging: string) => Promise<void>): Promise<string> {
  const { dependencies } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies?: unknown }
  const dir = join(CACHE, `${name}-install-${hash([what, NPM_INSTALL, dependencies])}`)
  await installAtomically(dir, NPM_DONE, install)
  touch(dir)
  return dir
}

/**
 * A project of this repository's (`<name>-<key>`, keyed by the repository folder and the install:
 * two checkouts' runs never share one) whose node_modules hard-link the files of `install`, made
 * once then kept, its package.json `pkg` and flakeproof unpacked afresh from `packed`
 * (installFlakeproof): unpacking unlinks before it writes, so nothing is written through a link into
 * the install. What the runners write there (node_modules/.vite) are new files of the project's own.
 */
export async function keptProject(name: string, install: string, pkg: object, packed: string): Promise<string> {
  const dir = join(CACHE, `${name}-${hash([ROOT, install])}`)
  await installAtomically(dir, NPM_DONE, (staging) => run('cp', ['-al', join(install, 'node_modules'), join(staging, 'node_modules')]))
  writeFileSync(join(dir, CHECKOUT), ROOT)
  touch(dir)
  writeFileSync(join(dir, 'package.json'), JSON.stringify(pkg))
  await installFlakeproof(dir, packed)
  return dir
}

/** A kept project's checkout (the ROOT in its key): once that folder is gone, no run can use the project again. */
const CHECKOUT = '.flakeproof-checkout'
const DAY = 86_400_000

/** Marks a kept folder used now: pruneKept goes by when each was last used. */
function touch(dir: string): void {
  const now = new Date()
  utimesSync(dir, now, now)
}

/**
 * Removes from `cache` what no run will use again, so a machine that runs the suite from many
 * checkouts (a fresh clone per CI run) does not fill its disk (3.4 GB of projects here after 13
 * clones): a project whose checkout is gone, and any install, project or staging folder (an
 * interrupted install's) not used for a week. Each goes only after a day unused, so a checkout
 * cloned again at the same path keeps its project, and a folder another run made or uses now stays.
 * A folder is moved aside first, so a run never finds one half removed (two runs may prune at once).
 */
export function pruneKept(cache: string = CACHE, now: number = Date.now()): void {
  if (!existsSync(cache)) return
  for (const name of readdirSync(cache)) {
    const dir = join(cache, name)
    const stats = statSync(dir, { throwIfNoEntry: false })
    if (!stats?.isDirectory()) continue
    const unused = now - stats.mtimeMs
    const checkout = join(dir, CHECKOUT)
    const gone = existsSync(checkout) && !existsSync(readFileSync(checkout, 'utf8'))
    if (unused > 7 * DAY || (gone && unused > DAY)) {
      const aside = `${dir}.stale-${process.pid}`
      if (moved(dir, aside)) rmSync(aside, { recursive: true, force: true })
    }
  }
}

/** What npm writes last into a folder it installed (its hidden lockfile), and cp -al copies. */
const NPM_DONE = 'node_modules/.package-lock.json'

/**
 * Makes `dir` unless it holds `done` already: installs into a staging folder and moves it in place,
 * so an interrupted install is never reused. Two processes may make the same folder at once (two
 * checkouts' runs share an install): the one that moves second keeps the first one's, which the
 * other may be using already. A folder without `done` (a move cut short, an older layout) is moved
 * aside before it is removed, never removed where a complete one may have just arrived.
 */
async function installAtomically(dir: string, done: string, install: (staging: string) => Promise<unknown>): Promise<void> {
  if (existsSync(join(dir, done))) return
  mkdirSync(CACHE, { recursive: true })
  const staging = `${dir}.staging-${process.pid}`
  rmSync(staging, { recursive: true, force: true })
  mkdirSync(staging)
  try {
    await install(staging)
    if (!existsSync(join(staging, done))) throw new Error(`${staging}: the install left no ${done}`)
    for (let tries = 0; tries < 3; tries++) {
      if (moved(staging, dir) || existsSync(join(dir, done))) return
      const aside = `${dir}.stale-${process.pid}`
      if (moved(dir, aside)) rmSync(aside, { recursive: true, force: true })
    }
    throw new Error(`${dir}: could not be replaced by ${staging}`)
  } finally {
    rmSync(staging, { recursive: true, force: true })
  }
}

/** rename(2) of a folder: false where `to` is a folder with files or `from` is gone (another process moved first). */
function moved(from: string, to: string): boolean {
  try {
    renameSync(from, to)
    return true
  } catch (error) {
    if (['ENOTEMPTY', 'EEXIST', 'ENOENT'].includes((error as NodeJS.ErrnoException).code ?? '')) return false
    throw error
  }
}

/** A hash of every file npm packs: package.json, README, LICENSE and CHANGELOG, and its `files` (dist/). */
function packedContentKey(): string {
  const digest = createHash('sha256')
  const { files = [] } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files?: string[] }
  const always = readdirSync(ROOT).filter((name) => name === 'package.json' || /^(readme|licen[cs]e|changelog)(\.|$)/i.test(name))
  const packed = [...always, ...files.flatMap((entry) => filesUnder(entry))].sort()
  for (const file of packed) digest.update(`${file}\0`).update(readFileSync(join(ROOT, file))).update('\0')
  return digest.digest('hex').slice(0, 12)
}

/** `entry` (relative to the repository) if it is a file, else every file under it. */
function filesUnder(entry: string): string[] {
  const path = join(ROOT, entry)
  if (!existsSync(path)) return []
  if (!statSync(path).isDirectory()) return [entry]
  return readdirSync(path, { recursive: true, encoding: 'utf8' })
    .map((name) => join(entry, name))
    .filter((file) => statSync(join(ROOT, file)).isFile())
}

function hash(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 12)
}
