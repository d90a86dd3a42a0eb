import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

/**
 * The layering rules of AGENTS.md as assertions over the import graph of src/ and plugin/ (in the
 * spirit of Playwright's DEPS.list files and utils/check_deps.js). Imports are read with a small
 * regex: `import … from`, `export … from`, side-effect `import '…'` and dynamic `import('…')`.
 * Only `import type`/`export type` statements are erased at run time (verbatimModuleSyntax keeps
 * `import { type A }` as `import {} from`), so only those count as type-only.
 *
 * Each failure names the file, the import and the rule it breaks.
 */

const ROOT = resolve(import.meta.dirname, '../..')

interface Edge {
  /** The importing file, relative to the repository root with `/`. */
  from: string
  /** The specifier as written. */
  specifier: string
  /** The imported file relative to the root (`src/core/wilson.ts`), or the package (`zod`, `node:fs`). */
  to: string
  /** An import to a file of this repository (not a package). */
  local: boolean
  /** `import type` / `export type`: erased at run time. */
  typeOnly: boolean
  dynamic: boolean
}

const STATIC = /^[ \t]*(import|export)\s+(type\s+)?((?:[\w$]+\s*,?\s*)?(?:\{[^}]*\}|\*(?:\s+as\s+[\w$]+)?)?)\s*from\s*['"]([^'"]+)['"]/gm
const SIDE_EFFECT = /^[ \t]*import\s*['"]([^'"]+)['"]/gm
/** `import('x')` on a line that is not a comment; `import('x' as string)` too. */
const DYNAMIC = /^(?![ \t]*(?:\/\/|\*)).*?\bimport\(\s*(['"])([^'"]+)\1/gm

const files = [...sourceFiles('src'), ...sourceFiles('plugin')]
/** The journal: its writer and reader (node:fs), and its line format apart from them (no I/O, for browser pages). */
const JOURNAL = ['src/artifacts/journal.ts', 'src/artifacts/journal-line.ts']
const edges = files.flatMap(importsOf)
const violation = (e: Edge, rule: string): string => `${e.from} imports '${e.specifier}'${e.typeOnly ? ' (type only)' : ''}: ${rule}`

/** `src/core/wilson.ts` → `core`; `plugin/vitest/x.ts` → `plugin`; `src/index.ts` → `index`. */
function layerOf(file: string): string {
  const [top, second] = file.split('/')
  if (top === 'plugin') return 'plugin'
  if (file === 'src/index.ts') return 'index'
  if (file === 'src/errors.ts') return 'errors'
  if (file === 'src/_zod.ts') return 'zod'
  if (file === 'src/own-files.ts') return 'own-files'
  return second ?? file
}

describe('the import graph (AGENTS.md, "Layout and dependency direction")', () => {
  it('is read: every source file is found and every local import resolves to a file', () => {
    expect(files.length).toBeGreaterThan(50)
    // The regex must see the known imports, or every rule below would pass vacuously.
    expect(edges).toContainEqual(expect.objectContaining({ from: 'src/cli/runner-commands.ts', to: 'plugin/vitest/cli.ts', dynamic: true }))
    expect(edges).toContainEqual(expect.objectContaining({ from: 'src/core/fisher.ts', to: 'src/core/fraction.ts' }))
    expect(edges).toContainEqual(expect.objectContaining({ from: 'plugin/vitest/runner.ts', to: 'src/session/worker.ts' }))
    expect(edges).toContainEqual(expect.objectContaining({ from: 'src/session/adapter.ts', to: 'src/session/worker.ts' }))
    const unresolved = edges.filter((e) => e.local && !existsSync(join(ROOT, e.to))).map((e) => violation(e, 'no such file'))
    expect(unresolved).toEqual([])
  })

  it('src/core imports no node:*, zod, picocolors or vitest, and nothing outside src/core', () => {
    const bad = edges
      .filter((e) => layerOf(e.from) === 'core')
      .filter((e) => !(e.local && layerOf(e.to) === 'core'))
      .map((e) => violation(e, 'src/core is pure: it imports only other src/core files (no node:*, zod, picocolors, vitest, no I/O)'))
    expect(bad).toEqual([])
  })

  it('only src/_zod.ts imports zod: the build bundles what it names (scripts/bundle-zod.mjs), so nothing loads zod whole', () => {
    const bad = edges.filter((e) => (e.to === 'zod' || e.to.startsWith('zod/')) && e.from !== 'src/_zod.ts').map((e) => violation(e, "import * as z from src/_zod.ts, and name a missing member there"))
    expect(bad).toEqual([])
    expect(edges).toContainEqual(expect.objectContaining({ from: 'src/artifacts/schemas.ts', to: 'src/_zod.ts' }))
  })

  it('nothing outside src/cli imports src/cli', () => {
    const bad = edges
      .filter((e) => e.local && layerOf(e.to) === 'cli' && layerOf(e.from) !== 'cli')
      .map((e) => violation(e, 'nothing imports src/cli (only src/cli itself and its bin)'))
    expect(bad).toEqual([])
  })

  it('src/ imports plugin/ only through the dynamic imports of each plugin/<runner>/cli.ts by the CLI registry', () => {
    // Every runner is an optional peer: each adapter is loaded only by its own command.
    const bad = edges
      .filter((e) => e.from.startsWith('src/') && e.local && e.to.startsWith('plugin/'))
      .filter((e) => !(e.from === 'src/cli/runner-commands.ts' && /^plugin\/[\w-]+\/cli\.ts$/.test(e.to) && e.dynamic))
      .map((e) => violation(e, 'the only imports of plugin/ from src/ are the dynamic ones of plugin/<runner>/cli.ts by src/cli/runner-commands.ts (each runner is an optional peer)'))
    expect(bad).toEqual([])
  })

  it('points one way: cli → session → pipeline → runner/artifacts/config → core, plugin → session', () => {
    // What each layer may import besides itself. runner, artifacts and config are one tier and do
    // not import one another; errors.ts (FlakeproofError) is a leaf every tier above core may use, and
    // so is src/_zod.ts (zod) for the tiers that hold schemas or read their types; own-files.ts (where
    // the package's own files are) is a leaf of the session (adapters reach it through adapter.ts) and the CLI.
    const allowed: Record<string, readonly string[]> = {
      core: [],
      errors: [],
      zod: [],
      'own-files': [],
      config: ['core', 'errors', 'zod'],
      artifacts: ['core', 'errors', 'zod'],
      runner: ['core', 'errors'],
      pipeline: ['runner', 'artifacts', 'config', 'core', 'errors', 'zod'],
      session: ['pipeline', 'runner', 'artifacts', 'config', 'core', 'errors', 'zod', 'own-files'],
      cli: ['session', 'pipeline', 'runner', 'artifacts', 'config', 'core', 'errors', 'plugin', 'zod', 'own-files'],
      plugin: ['session'],
      index: ['pipeline', 'artifacts', 'config', 'core', 'errors', 'zod'],
    }
    const backEdges = edges
      .filter((e) => e.local)
      .filter((e) => {
        const [from, to] = [layerOf(e.from), layerOf(e.to)]
        return from !== to && !(allowed[from] ?? []).includes(to)
      })
    const known = (e: Edge): boolean => KNOWN_BACK_EDGES.some((k) => k.from === e.from && k.to === e.to && e.typeOnly)
    const bad = backEdges
      .filter((e) => !known(e))
      .map((e) => violation(e, `${layerOf(e.from)} must not import ${layerOf(e.to)} (allowed: ${(allowed[layerOf(e.from)] ?? []).join(', ') || 'only itself'})`))
    expect(bad).toEqual([])
    // Once a known back edge is gone, its entry must go too, so it cannot come back unnoticed.
    const stale = KNOWN_BACK_EDGES.filter((k) => !backEdges.some((e) => e.from === k.from && e.to === k.to)).map((k) => `${k.from} → ${k.to}`)
    expect(stale, 'remove these from KNOWN_BACK_EDGES').toEqual([])
  })

  it('an adapter (any plugin/<runner>/) imports only its own folder, the adapter surface, its runner and node built-ins', () => {
    // The adapter surface is src/session/adapter.ts (main process) and src/session/worker.ts (in the
    // runner's workers); a runner's packages are `<runner>`, `<runner>/…` and `@<runner>/…` (vitest,
    // @vitest/runner; jest, @jest/…; @playwright/test). Type-only imports too: nothing reaches past the surface.
    const bad = edges
      .filter((e) => adapterOf(e.from) !== undefined)
      .filter((e) => {
        const runner = adapterOf(e.from) as string
        if (e.local) return !(adapterOf(e.to) === runner || ADAPTER_SURFACE.includes(e.to))
        return !(e.to.startsWith('node:') || e.to === runner || e.to.startsWith(`${runner}/`) || e.to.startsWith(`@${runner}/`))
      })
      .map((e) => violation(e, `an adapter imports only plugin/${adapterOf(e.from)}/, ${ADAPTER_SURFACE.join(' or ')}, its runner's packages and node built-ins`))
    expect(bad).toEqual([])
  })

  it('no adapter imports another adapter', () => {
    const bad = edges
      .filter((e) => e.local && adapterOf(e.from) !== undefined && adapterOf(e.to) !== undefined && adapterOf(e.to) !== adapterOf(e.from))
      .map((e) => violation(e, 'adapters are independent: what two share belongs in src/session/'))
    expect(bad).toEqual([])
  })

  it.each(WORKER_ENTRIES)('%s (in the runner’s workers) reaches, at run time, only its runner, node built-ins, its own folder, src/session/worker.ts, pure src/core and the journal', (entry) => {
    // Worker start-up and the per-repetition cost stay low: no zod, no pipeline, no picocolors.
    const runner = adapterOf(entry) as string
    const reached = runtimeClosure(entry)
    const bad = [...reached.values()]
      .filter((e) => {
        if (!e.local) return !(e.to.startsWith('node:') || e.to === runner || e.to.startsWith(`${runner}/`) || e.to.startsWith(`@${runner}/`))
        return !(layerOf(e.to) === 'core' || JOURNAL.includes(e.to) || WORKER_SURFACE.includes(e.to) || adapterOf(e.to) === runner)
      })
      .map((e) => violation(e, `reached from ${entry}, which runs in workers: only its runner, node built-ins, plugin/${runner}/, src/session/worker.ts, pure src/core and src/artifacts/journal.ts`))
    expect(bad).toEqual([])
    // Spelled out, because these are why the rule exists: zod and its schemas, the pipeline, and the
    // hints (src/core/hints.ts, pure but unused in workers), each loaded again in every test file's worker.
    const heavy = (to: string): boolean => to === 'src/_zod.ts' || to === 'zod' || to.startsWith('zod/') || to.startsWith('src/pipeline/') || /^src\/artifacts\/.*schemas?\.ts$/.test(to) || to === 'src/core/hints.ts'
    expect([...reached.keys()].filter(heavy)).toEqual([])
  })

  it('src/cli/main.ts loads a command only when it runs, and a short command reaches no parser, glob or renderer it does not use', () => {
    // Start-up is paid by every trial of a short command and every CI step (bench/startup.mjs).
    const commands = files.filter((f) => /^src\/cli\/commands\/[a-z][\w-]*\.ts$/.test(f))
    const fromMain = edges.filter((e) => e.from === 'src/cli/main.ts' && commands.includes(e.to))
    expect(fromMain.filter((e) => !e.dynamic).map((e) => violation(e, 'import commands with import() from the COMMANDS table'))).toEqual([])
    expect(fromMain.map((e) => e.to).sort()).toEqual(commands)
    const planReaches = [...runtimeClosure('src/cli/main.ts', { staticOnly: true }).keys(), ...runtimeClosure('src/cli/commands/plan.ts', { staticOnly: true }).keys()]
    const heavy = (to: string): boolean =>
      ['sax', 'fast-glob', 'src/artifacts/html.ts', 'src/artifacts/history-schemas.ts', 'src/artifacts/junit-read.ts', 'src/config/vitest-options.ts'].includes(to)
    expect([...new Set(planReaches.filter(heavy))]).toEqual([])
  })

  it('src/session/worker.ts reaches, at run time, only pure src/core, the journal and node built-ins', () => {
    const bad = [...runtimeClosure('src/session/worker.ts').values()]
      .filter((e) => (e.local ? !(layerOf(e.to) === 'core' || JOURNAL.includes(e.to) || e.to === 'src/session/page.ts') : !e.to.startsWith('node:')))
      .map((e) => violation(e, 'the worker surface re-exports only pure src/core, src/session/page.ts and the journal (types of others are erased)'))
    expect(bad).toEqual([])
  })

  it('has no cast to `never` in src/ and plugin/ (issue 21 item 7): a value that needs one has a type to name', () => {
    const bad = files.filter((file) => /\bas never\b/.test(readFileSync(join(ROOT, file), 'utf8')))
    expect(bad).toEqual([])
  })

  it("names each file it loads by path with ownFile and a literal: the build keeps exactly those files (scripts/bundle-dist.mjs)", () => {
    // Every file but its own, where it is declared.
    const texts = files.filter((file) => file !== 'src/own-files.ts').map((file) => [file, readFileSync(join(ROOT, file), 'utf8')] as const)
    const calls = texts.flatMap(([file, text]) => [...text.matchAll(/\bownFile\(([^)]*)\)/g)].map((m) => `${file}: ownFile(${m[1]})`))
    // The scan must see the known calls, or the rule below would pass vacuously.
    expect(calls).toContain("plugin/jest/_jest-load.ts: ownFile('plugin/jest/reporter.js')")
    // A literal path of a built file, or '' and '../package.json' (folders and a file the build does not make).
    const bad = calls.filter((call) => !/ownFile\('(?:[\w./-]+\.c?js|\.\.\/package\.json|)'\)$/.test(call))
    expect(bad).toEqual([])
    // What finds a file beside its own code's module breaks once that code is in a chunk of the build.
    const relative = texts.filter(([, text]) => /new URL\([^)]*import\.meta\.url\)/.test(text)).map(([file]) => file)
    expect(relative).toEqual([])
  })

  it.each(PAGE_ENTRIES)('%s (loaded into a browser page) reaches no node:* at all: only its runner, its own folder, src/session/page.ts, pure src/core and the journal line format', (entry) => {
    // The page cannot load node:fs: one import of it and browser mode measures nothing.
    const runner = adapterOf(entry) as string
    const reached = runtimeClosure(entry)
    const bad = [...reached.values()]
      .filter((e) => {
        if (!e.local) return !(e.to === runner || e.to.startsWith(`${runner}/`) || e.to.startsWith(`@${runner}/`))
        return !(layerOf(e.to) === 'core' || e.to === 'src/artifacts/journal-line.ts' || e.to === 'src/session/page.ts' || adapterOf(e.to) === runner)
      })
      .map((e) => violation(e, `reached from ${entry}, which runs in a browser page: its runner, plugin/${runner}/, src/session/page.ts, pure src/core and src/artifacts/journal-line.ts only`))
    expect(bad).toEqual([])
  })

  it('Vitest\'s browser recorder shares the recording logic of its Node runner', () => {
    expect(runtimeClosure('plugin/vitest/browser-recorder.ts').has('plugin/vitest/_recorder.ts')).toBe(true)
  })

  it('only src/artifacts writes files', () => {
    const WRITES = /\b(writeFileSync|writeFile|writeSync|write|appendFileSync|appendFile|renameSync|rename|rmSync|rm|rmdirSync|rmdir|mkdirSync|mkdir|mkdtempSync|mkdtemp|unlinkSync|unlink|createWriteStream|copyFileSync|copyFile|cpSync|cp|symlinkSync|symlink|linkSync|link|truncateSync|truncate|ftruncateSync|chmodSync|chmod|utimesSync|utimes|openSync|open)\b/
    const bad: string[] = []
    for (const e of edges) {
      if (e.from.startsWith('src/artifacts/') || e.typeOnly) continue
      if (!['node:fs', 'fs', 'node:fs/promises', 'fs/promises'].includes(e.to)) continue
      const source = readFileSync(join(ROOT, e.from), 'utf8')
      const clause = importClauseOf(source, e.specifier)
      // A namespace or default import hides which functions are called: refuse it outside src/artifacts.
      if (clause === undefined || !clause.trim().startsWith('{')) bad.push(violation(e, 'only src/artifacts writes files; import fs functions by name outside it'))
      else for (const name of namesIn(clause)) if (WRITES.test(name)) bad.push(violation(e, `only src/artifacts writes files (\`${name}\`)`))
    }
    // A second net for `fs.promises.writeFile(…)` and the like, however fs was reached.
    for (const file of files.filter((f) => !f.startsWith('src/artifacts/'))) {
      const source = readFileSync(join(ROOT, file), 'utf8')
      for (const match of source.matchAll(/\b(?:fs|promises|fsp)\.(\w+)\s*\(/g)) {
        if (WRITES.test(match[1] as string)) bad.push(`${file} calls \`${match[0]}\`: only src/artifacts writes files`)
      }
    }
    expect(bad).toEqual([])
  })

  it('leaves no dynamic import whose target cannot be read, outside the known one', () => {
    // plugin/vitest/_vitest-args.ts loads a chunk of Vitest's own CLI by URL (a package file, not ours);
    // src/cli/bin.ts hands the run to the bin of the project's own flakeproof, another copy (src/cli/project-copy.ts).
    const opaque = files.flatMap((file) => {
      const source = readFileSync(join(ROOT, file), 'utf8')
      return [...source.matchAll(/^(?![ \t]*(?:\/\/|\*)).*\bimport\(\s*(?!['"])/gm)].map(() => file)
    })
    expect(opaque).toEqual(['src/cli/bin.ts', 'plugin/vitest/_vitest-args.ts'])
  })
})

/**
 * Import cycles are reported (issue 7 lists artifacts/markdown.ts ↔ markdown-tests.ts), not
 * failed: removing them is another task. The known ones are listed so a new one fails the test.
 */
describe('import cycles', () => {
  it('are only the known ones', () => {
    expect(cyclesOf(edges.filter((e) => e.local))).toEqual(KNOWN_CYCLES)
  })
})

/**
 * Back edges that exist today and are type-only (erased at run time), listed so the rule holds for
 * every other edge. Each is to be removed by moving the type down a layer (issue 7, "Names").
 */
const KNOWN_BACK_EDGES: readonly { from: string; to: string; why: string }[] = []

const KNOWN_CYCLES: string[][] = []

/** What an adapter may import of flakeproof: the adapter surface, for its main process and for its workers. */
const ADAPTER_SURFACE = ['src/session/adapter.ts', 'src/session/worker.ts', 'src/session/page.ts']
/** What code in a runner's workers may import of flakeproof's: the worker surface and the page surface under it. */
const WORKER_SURFACE = ['src/session/worker.ts', 'src/session/page.ts']
/** Adapter code that runs inside a browser page (no node:*). */
const PAGE_ENTRIES = ['plugin/vitest/browser-recorder.ts']

/** Adapter files that run inside the runner's workers (Vitest's runners, Jest's setup file's work). */
const WORKER_ENTRIES = ['plugin/vitest/runner.ts', 'plugin/vitest/enforce-runner.ts', 'plugin/jest/_repeat.ts', 'plugin/jest/runner.ts']

/** `plugin/vitest/x.ts` → `vitest`: the runner whose adapter a file belongs to; undefined outside plugin/. */
function adapterOf(file: string): string | undefined {
  const [top, runner] = file.split('/')
  return top === 'plugin' && runner !== undefined && file.split('/').length > 2 ? runner : undefined
}

// --- internal ---

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts') && !name.endsWith('.d.ts'))
    .map((name) => `${dir}/${name.split('\\').join('/')}`)
    .sort()
}

function importsOf(file: string): Edge[] {
  const source = readFileSync(join(ROOT, file), 'utf8')
  const edge = (specifier: string, typeOnly: boolean, dynamic: boolean): Edge => {
    const local = specifier.startsWith('.')
    return { from: file, specifier, to: local ? resolveLocal(file, specifier) : packageOf(specifier), local, typeOnly, dynamic }
  }
  return [
    ...[...source.matchAll(STATIC)].filter((m) => (m[3] ?? '').trim() !== '').map((m) => edge(m[4] as string, m[2] !== undefined, false)),
    ...[...source.matchAll(SIDE_EFFECT)].map((m) => edge(m[1] as string, false, false)),
    ...[...source.matchAll(DYNAMIC)].map((m) => edge(m[2] as string, false, true)),
  ]
}

/** `../core/wilson.js` from `src/pipeline/x.ts` → `src/core/wilson.ts`. */
function resolveLocal(from: string, specifier: string): string {
  const target = relative(ROOT, resolve(ROOT, dirname(from), specifier)).split('\\').join('/')
  return target.replace(/\.js$/, '.ts')
}

/** `vitest/node` stays as written (the rules name subpaths); `@scope/pkg/x` → `@scope/pkg/x`. */
function packageOf(specifier: string): string {
  return specifier
}

function importClauseOf(source: string, specifier: string): string | undefined {
  for (const m of source.matchAll(STATIC)) if (m[4] === specifier) return m[3]
  return undefined
}

function namesIn(clause: string): string[] {
  return clause
    .replace(/[{}]/g, '')
    .split(',')
    .map((part) => part.trim().replace(/^type\s+/, '').split(/\s+as\s+/)[0]?.trim() ?? '')
    .filter(Boolean)
}

/** Every edge reachable from `start` through run-time imports (type-only ones are erased), by target; `staticOnly`: what loads before any `import()`. */
function runtimeClosure(start: string, { staticOnly = false } = {}): Map<string, Edge> {
  const reached = new Map<string, Edge>()
  const queue = [start]
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    for (const e of edges.filter((x) => x.from === file && !x.typeOnly && !(staticOnly && x.dynamic))) {
      if (reached.has(e.to)) continue
      reached.set(e.to, e)
      if (e.local) queue.push(e.to)
    }
  }
  return reached
}

/** Strongly connected components of more than one file (or a file importing itself), each sorted. */
function cyclesOf(local: Edge[]): string[][] {
  const next = new Map<string, string[]>()
  for (const e of local) next.set(e.from, [...(next.get(e.from) ?? []), e.to])
  // Tarjan's algorithm.
  let index = 0
  const indexOf = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const found: string[][] = []
  const visit = (v: string): void => {
    indexOf.set(v, index)
    low.set(v, index++)
    stack.push(v)
    onStack.add(v)
    for (const w of next.get(v) ?? []) {
      if (!indexOf.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, indexOf.get(w) as number))
    }
    if (low.get(v) === indexOf.get(v)) {
      const component: string[] = []
      let w: string | undefined
      do {
        w = stack.pop() as string
        onStack.delete(w)
        component.push(w)
      } while (w !== v)
      if (component.length > 1 || (next.get(v) ?? []).includes(v)) found.push(component.sort())
    }
  }
  for (const v of [...next.keys()].sort()) if (!indexOf.has(v)) visit(v)
  return found.sort((a, b) => (a[0] as string).localeCompare(b[0] as string))
}
