// The last step of `npm run build`: dist/ as tsc emits it is ~250 ES modules, and Node's loader pays
// for each one it loads (resolving, reading, linking), ~150 of them in a wrapped Jest run. This
// bundles the modules into the files something loads by their path (`entries` below, each at its
// own path) and the chunks they share (dist/chunks/), one chunk per set of entries that reach the
// same modules, so a command still loads only what it reaches, and what it imports lazily stays
// lazy. The .d.ts files stay as tsc wrote them; every other .js goes (docs/architecture.md, "The build").
//   node scripts/bundle-dist.mjs
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { build } from 'rolldown'

const root = join(import.meta.dirname, '..')

/** The build stops on one line: what is wrong. */
function fail(message) {
  console.error(`scripts/bundle-dist.mjs: ${message}`)
  process.exit(1)
}
const dist = join(root, 'dist')
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))

/** Every file of dist/ (relative, `/`-separated) whose name ends with `suffix`. */
const built = (suffix) =>
  readdirSync(dist, { recursive: true, encoding: 'utf8' })
    .map((f) => f.split('\\').join('/'))
    .filter((f) => f.endsWith(suffix))

/** What users import (package.json `exports`) and run (`bin`). */
const published = [...Object.values(pkg.exports).flatMap((target) => (typeof target === 'string' ? [target] : [target.default])), ...Object.values(pkg.bin)]

/**
 * What flakeproof loads or starts by its path: every `ownFile('…')` of src/ and plugin/ (src/own-files.ts),
 * and the file plugin/jest/setup.cts loads beside it.
 */
const sources = ['src', 'plugin'].flatMap((folder) => readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' }).map((f) => join(folder, f)))
const byPath = sources
  .filter((f) => /\.c?ts$/.test(f))
  .flatMap((f) => [...readFileSync(join(root, f), 'utf8').matchAll(/\bownFile\('([^']+\.c?js)'\)/g)].map((m) => m[1]))
const loadedBySetup = ['plugin/jest/_repeat.js']

/**
 * Kept for who imports them by path from outside the package: the history writer that
 * test/unit/history.test.ts runs in parallel processes, and what bench/bisect-calibration.mjs
 * calibrates.
 */
const byOthers = ['src/artifacts/history.js', 'src/core/bisect-policy.js', 'src/core/bisect-simulation.js']

const entries = [...new Set([...published.map((p) => relative('dist', p)), ...byPath, ...loadedBySetup, 'src/own-files.js', ...byOthers])]
  // CommonJS files (plugin/jest/setup.cjs) are loaded by Jest's require as they are: no ES module imports them.
  .filter((f) => f.endsWith('.js'))
  .sort()
const missing = entries.filter((f) => !built('.js').includes(f))
if (missing.length > 0) fail(`no built file for ${missing.join(', ')}: build with tsc first (npm run build)`)

const staging = join(root, 'dist.bundled')
rmSync(staging, { recursive: true, force: true })
await build({
  input: Object.fromEntries(entries.map((f) => [f.replace(/\.js$/, ''), join(dist, f)])),
  platform: 'node',
  logLevel: 'warn',
  // Packages and Node's modules are imported at run time, as tsc left them.
  external: (id) => !id.startsWith('.') && !id.startsWith('/'),
  // An entry exports exactly what its module does: users import them.
  preserveEntrySignatures: 'strict',
  output: { dir: staging, format: 'esm', entryFileNames: '[name].js', chunkFileNames: 'chunks/[name]-[hash].js' },
})

for (const file of built('.js')) rmSync(join(dist, file))
for (const file of readdirSync(staging, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js'))) {
  const to = join(dist, file)
  mkdirSync(dirname(to), { recursive: true })
  renameSync(join(staging, file), to)
}
rmSync(staging, { recursive: true, force: true })

// src/own-files.ts finds dist/ one folder above its code: in its own entry (dist/src/) or a chunk (dist/chunks/), never deeper.
const ownRoot = 'new URL("../", import.meta.url)'
const holding = built('.js').filter((f) => readFileSync(join(dist, f), 'utf8').includes(ownRoot))
if (holding.length !== 1 || holding[0].split('/').length !== 2) fail(`src/own-files.ts was bundled into ${holding.join(', ') || 'no file'}, not one folder below dist/, where ownFile would not find the package's files`)
