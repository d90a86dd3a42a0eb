// The last step of `npm run build`: dist/ as tsc emits it is ~250 ES modules, and Node's loader pays
// for each one it loads (resolving, reading, linking), ~150 of them in a wrapped Jest run. This
// bundles the modules into the files something loads by their path (`entries` below, each at its
// own path) and the chunks they share (dist/flakeproof-chunks/), one chunk per set of entries that reach the
// same modules, so a command still loads only what it reaches, and what it imports lazily stays
// lazy. The .d.ts files stay as tsc wrote them; every other .js goes (docs/architecture.md, "The build").
//   node scripts/bundle-dist.mjs
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs'
import { dirname, isAbsolute, join, posix, sep } from 'node:path'
import { build } from 'rolldown'

const root = join(import.meta.dirname, '..')
const dist = join(root, 'dist')
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))

/** The build stops on one line: what is wrong. */
function fail(message) {
  console.error(`scripts/bundle-dist.mjs: ${message}`)
  process.exit(1)
}

/** Every file of dist/ (relative, `/`-separated) whose name ends with `suffix`. */
const built = (suffix) =>
  readdirSync(dist, { recursive: true, encoding: 'utf8' })
    .map((f) => f.split('\\').join('/'))
    .filter((f) => f.endsWith(suffix))

/** What users import (package.json `exports`, every condition but `types`) and run (`bin`), under dist/. */
const published = [
  ...Object.values(pkg.exports).flatMap((target) => (typeof target === 'string' ? [target] : Object.entries(target).filter(([condition]) => condition !== 'types').map(([, path]) => path))),
  ...Object.values(pkg.bin),
].map((path) => path.replace(/^\.\/dist\//, ''))

/**
 * What flakeproof loads or starts by its path: every `ownFile('…')` of src/ and plugin/
 * (src/own-files.ts; test/unit/layering.test.ts keeps each argument a literal, so none is missed
 * here), and what a CommonJS file loads beside it (`join(__dirname, '_repeat.js')` in plugin/jest/setup.cts).
 */
const sources = ['src', 'plugin'].flatMap((folder) => readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' }).map((f) => `${folder}/${f.split(sep).join('/')}`))
const byPath = sources
  .filter((f) => /\.c?ts$/.test(f))
  .flatMap((f) => {
    const text = readFileSync(join(root, f), 'utf8')
    const beside = [...text.matchAll(/\bjoin\(__dirname, '([^']+\.js)'\)/g)].map((m) => posix.join(posix.dirname(f), m[1]))
    return [...[...text.matchAll(/\bownFile\('([^']+\.c?js)'\)/g)].map((m) => m[1]), ...beside]
  })

/**
 * Kept for who imports them by path from outside the package: the history writer that
 * test/unit/history.test.ts runs in parallel processes, and what bench/bisect-calibration.mjs
 * calibrates.
 */
const byOthers = ['src/artifacts/history.js', 'src/core/bisect-policy.js', 'src/core/bisect-simulation.js']

const entries = [...new Set([...published, ...byPath, 'src/own-files.js', ...byOthers])]
  // CommonJS files (plugin/jest/setup.cjs) are loaded by Jest's require as they are: no ES module imports them.
  .filter((f) => f.endsWith('.js'))
  .sort()
const tscFiles = new Set(built('.js'))
const missing = entries.filter((f) => !tscFiles.has(f))
if (missing.length > 0) fail(`no built file for ${missing.join(', ')}: build with tsc first (npm run build)`)

const staging = join(root, 'dist.bundled')
rmSync(staging, { recursive: true, force: true })
try {
  await build({
    input: Object.fromEntries(entries.map((f) => [f.replace(/\.js$/, ''), join(dist, f)])),
    platform: 'node',
    logLevel: 'warn',
    // Packages and Node's modules are imported at run time, as tsc left them.
    external: (id) => !id.startsWith('.') && !isAbsolute(id),
    // An entry exports exactly what its module does: users import them.
    preserveEntrySignatures: 'strict',
    // The chunks' folder has a name of its own: src/core/signature.ts knows their frames by it.
    output: { dir: staging, format: 'esm', entryFileNames: '[name].js', chunkFileNames: 'flakeproof-chunks/[name]-[hash].js' },
  })
} catch (error) {
  rmSync(staging, { recursive: true, force: true })
  fail(`rolldown failed, dist/ is left as tsc wrote it: ${error instanceof Error ? error.message : String(error)}`)
}

for (const file of tscFiles) rmSync(join(dist, file))
for (const file of readdirSync(staging, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js'))) {
  const to = join(dist, file)
  mkdirSync(dirname(to), { recursive: true })
  renameSync(join(staging, file), to)
}
rmSync(staging, { recursive: true, force: true })
// Folders a previous build's files left empty (its chunks', say): npm would not pack them, a reader would wonder.
for (const folder of readdirSync(dist, { recursive: true, withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => join(d.parentPath ?? d.path, d.name)).sort().reverse()) {
  if (readdirSync(folder).length === 0) rmSync(folder, { recursive: true })
}

// src/own-files.ts finds dist/ one folder above its code: in its own entry (dist/src/) or a chunk (dist/flakeproof-chunks/), never deeper.
const ownRoot = 'new URL("../", import.meta.url)'
const holding = built('.js').filter((f) => readFileSync(join(dist, f), 'utf8').includes(ownRoot))
if (holding.length !== 1 || holding[0].split('/').length !== 2) fail(`src/own-files.ts was bundled into ${holding.join(', ') || 'no file'}, not one folder below dist/, where ownFile would not find the package's files`)
