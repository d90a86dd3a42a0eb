// What every bench shares: smoke mode, paired timing of two commands, and the one line format a
// ratio is printed in (test/e2e/bench-smoke.test.ts reads it, bench/all.mjs gathers it).
import { spawnSync } from 'node:child_process'
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export const ROOT = join(import.meta.dirname, '..')
export const BIN = join(ROOT, 'dist/src/cli/bin.js')
export const VITEST = join(ROOT, 'node_modules/vitest/vitest.mjs')
export const JEST = join(ROOT, 'node_modules/jest/bin/jest.js')

/**
 * `BENCH_SMOKE=1` or `--smoke`: tiny sizes and one or two pairs, so the whole script runs in seconds
 * inside the test suite and cannot rot. Its figures mean nothing; its lines must still be printed.
 */
export const SMOKE = process.env.BENCH_SMOKE === '1' || process.argv.includes('--smoke')

/** `full` normally, `smoke` in smoke mode; an environment variable overrides both. */
export function size(name, full, smoke) {
  const given = process.env[name]
  return given === undefined || given === '' ? (SMOKE ? smoke : full) : Number(given)
}

export const median = (xs) => {
  const sorted = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/** A folder for one bench's files, removed when the process exits (KEEP=1 keeps it and says where). */
export function scratch(prefix) {
  const dir = mkdtempSync(join(tmpdir(), `flakeproof-bench-${prefix}-`))
  process.on('exit', () => {
    if (process.env.KEEP === '1') console.error(`kept ${dir}`)
    else rmSync(dir, { recursive: true, force: true })
  })
  return dir
}

/**
 * Runs one command to completion and returns its wall milliseconds (a monotonic clock around the
 * whole child, start-up included). A command that fails stops the bench with its stderr.
 */
export function wallMs({ file = process.execPath, args, cwd = ROOT, env }) {
  const started = process.hrtime.bigint()
  const result = spawnSync(file, args, { cwd, env: env ?? process.env, encoding: 'utf8', maxBuffer: 1 << 28 })
  const ms = Number(process.hrtime.bigint() - started) / 1e6
  if (result.status !== 0) throw new Error(`${file} ${args.join(' ')} exited ${result.status ?? result.signal}:\n${(result.stderr ?? '').slice(-3000)}`)
  return ms
}

/**
 * A and B run in turn, `pairs` times (A B, then B A, …, so drift in the machine's speed hits both
 * sides alike); each pair gives one ratio A/B. Returns the medians of each side, the median ratio
 * and the spread of the ratios (min–max), after `warmup` unpaired runs of each.
 */
export function paired(a, b, { pairs, warmup = SMOKE ? 0 : 1 }) {
  for (let i = 0; i < warmup; i++) {
    a()
    b()
  }
  const as = []
  const bs = []
  const ratios = []
  for (let i = 0; i < pairs; i++) {
    let x
    let y
    if (i % 2 === 0) {
      x = a()
      y = b()
    } else {
      y = b()
      x = a()
    }
    as.push(x)
    bs.push(y)
    ratios.push(x / y)
  }
  return { a: median(as), b: median(bs), ratio: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios), pairs }
}

/**
 * The one line a ratio is printed in, its target beside it:
 *   ratio <name>: <value> (target <= 2.5: met) <what it is, its spread>
 * `target` is `{ at_most: x }` or `{ at_least: x }`, or undefined for a figure shown without a goal.
 * In smoke mode the verdict says `smoke` instead: sizes that small measure nothing.
 */
export function printRatio(name, value, target, detail = '') {
  let goal = 'no target'
  if (target !== undefined) {
    const [op, bound] = 'at_most' in target ? ['<=', target.at_most] : ['>=', target.at_least]
    const met = op === '<=' ? value <= bound : value >= bound
    goal = `target ${op} ${bound}: ${SMOKE ? 'smoke' : met ? 'met' : 'NOT MET'}`
  }
  console.log(`ratio ${name}: ${Number.isFinite(value) ? value.toFixed(value < 10 ? 3 : 1) : String(value)} (${goal})${detail ? ` ${detail}` : ''}`)
}

/** `A 98 ms, B 41 ms (medians); ratios 2.1–2.6 over 30 pairs`: a paired result, its spread shown. */
export function spread({ a, b, min, max, pairs }, [nameA, nameB], unit = 'ms') {
  const at = (x) => (unit === 's' ? `${(x / 1000).toFixed(2)} s` : `${x.toFixed(0)} ms`)
  return `${nameA} ${at(a)}, ${nameB} ${at(b)} (medians); ratios ${min.toFixed(3)}–${max.toFixed(3)} over ${pairs} pair${pairs === 1 ? '' : 's'}`
}

/**
 * flakeproof installed in `dir` as a user has it: package.json and dist/ (what `npm pack` puts in the
 * tarball) copied to `dir/node_modules/flakeproof`, beside links to every other package of this
 * repository's node_modules. Installed, not linked: Vitest and Jest load files under node_modules
 * natively, and transform any other file (the plugin's runner, Jest's setup) in every worker, so a
 * bench run from the repository would charge flakeproof a cost no user pays. Returns its bin.
 */
export function installInto(dir) {
  const modules = join(dir, 'node_modules')
  mkdirSync(modules, { recursive: true })
  for (const name of readdirSync(join(ROOT, 'node_modules'))) {
    if (name !== 'flakeproof' && !existsSync(join(modules, name))) symlinkSync(join(ROOT, 'node_modules', name), join(modules, name))
  }
  const pkg = join(modules, 'flakeproof')
  cpSync(join(ROOT, 'dist'), join(pkg, 'dist'), { recursive: true })
  copyFileSync(join(ROOT, 'package.json'), join(pkg, 'package.json'))
  return join(pkg, 'dist/src/cli/bin.js')
}

/**
 * A Vitest project in `dir`: `files` test files of `tests` trivial tests each (`tests/fNN.test.ts`),
 * or the given `source` per file, a vitest.config.ts with `config` inside `test: {…}`, and flakeproof
 * installed (installInto; its bin is `binOf(dir)`).
 */
export function vitestProject(dir, { files = 20, tests = 10, source, config = '' } = {}) {
  mkdirSync(join(dir, 'tests'), { recursive: true })
  for (let f = 1; f <= files; f++) {
    const body = source ?? Array.from({ length: tests }, (_, t) => `test('t${t + 1}', () => { expect(${f} + ${t}).toBe(${f + t}) })`).join('\n')
    writeFileSync(join(dir, 'tests', `f${String(f).padStart(2, '0')}.test.ts`), `import { expect, test } from 'vitest'\n${body}\n`)
  }
  writeFileSync(join(dir, 'vitest.config.ts'), `import { defineConfig } from 'vitest/config'\nexport default defineConfig({ test: { include: ['tests/*.test.ts'], ${config} } })\n`)
  installInto(dir)
  return dir
}

/**
 * A copy of bench/jest-project in `dir` (10 files × 10 trivial tests; BENCH_JEST_FILES of them, one
 * in smoke mode) with flakeproof installed (installInto). Returns its bin.
 */
export function jestProject(dir, files = size('BENCH_JEST_FILES', 10, 1)) {
  const source = join(ROOT, 'bench/jest-project')
  mkdirSync(join(dir, 'tests'), { recursive: true })
  for (const name of ['jest.config.js', 'package.json']) copyFileSync(join(source, name), join(dir, name))
  for (const name of readdirSync(join(source, 'tests')).sort().slice(0, files)) copyFileSync(join(source, 'tests', name), join(dir, 'tests', name))
  return installInto(dir)
}

/** The bin of the flakeproof installed in `dir` (installInto). */
export function binOf(dir) {
  return join(dir, 'node_modules/flakeproof/dist/src/cli/bin.js')
}

/** Peak resident memory of one command in MB (GNU time's %M), the command's own output dropped. */
export function peakMb({ file = process.execPath, args, cwd = ROOT, env }) {
  const result = spawnSync('/usr/bin/time', ['-f', '%M', file, ...args], { cwd, env: env ?? process.env, encoding: 'utf8', maxBuffer: 1 << 28 })
  if (result.status !== 0) throw new Error(`${file} ${args.join(' ')} exited ${result.status}:\n${result.stderr.slice(-3000)}`)
  return Number(result.stderr.trim().split('\n').at(-1)) / 1024
}
