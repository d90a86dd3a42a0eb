import { readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

/**
 * Every name `import … from 'flakeproof'` gives (src/index.ts, through its re-exports) is declared
 * under a JSDoc comment, so an editor shows what it is, what its numbers mean and what it throws.
 * Read from the source text: each `export … from` is followed to the file that declares the name.
 */

const ROOT = resolve(import.meta.dirname, '../..')

interface Declared {
  name: string
  file: string
  documented: boolean
}

/** The names a module exports, each followed to its declaration. */
function exportsOf(file: string, seen = new Set<string>()): Declared[] {
  if (seen.has(file)) return []
  seen.add(file)
  const source = readFileSync(file, 'utf8')
  const found: Declared[] = []
  for (const match of source.matchAll(/^export \* from '([^']+)'/gm)) found.push(...exportsOf(moduleFile(file, match[1] ?? ''), seen))
  for (const match of source.matchAll(/^export (?:type )?\{([^}]*)\}(?: from '([^']+)')?/gm)) {
    for (const name of namesIn(match[1] ?? '')) found.push(declarationOf(name, match[2] === undefined ? file : moduleFile(file, match[2])))
  }
  for (const match of source.matchAll(/^export (?:declare )?(?:async )?(?:function|const|let|class|interface|type|enum) (\w+)/gm)) {
    found.push({ name: match[1] ?? '', file, documented: documentedAt(source, match.index) })
  }
  return found
}

/** Where `name` is declared, starting from `file`: its own declaration, a re-export, or an import it passes on. */
function declarationOf(name: string, file: string): Declared {
  const source = readFileSync(file, 'utf8')
  const own = new RegExp(`^export (?:declare )?(?:async )?(?:function|const|let|class|interface|type|enum) ${name}\\b`, 'm').exec(source)
  if (own) return { name, file, documented: documentedAt(source, own.index) }
  for (const match of source.matchAll(/^(?:export|import) (?:type )?\{([^}]*)\} from '([^']+)'/gm)) {
    if (namesIn(match[1] ?? '').includes(name)) return declarationOf(name, moduleFile(file, match[2] ?? ''))
  }
  return { name, file, documented: false }
}

/** `a, type B, c as d` → the names as declared: a, B, c. */
function namesIn(list: string): string[] {
  return list
    .split(',')
    .map((part) => part.trim().replace(/^type /, '').split(/\s+as\s+/)[0] ?? '')
    .filter((name) => name !== '')
}

function moduleFile(from: string, specifier: string): string {
  return join(dirname(from), specifier.replace(/\.js$/, '.ts'))
}

/** A `/** … *\/` block ends right above the declaration (blank space between is allowed). */
function documentedAt(source: string, index: number): boolean {
  const before = source.slice(0, index).trimEnd()
  return before.endsWith('*/') && before.lastIndexOf('/**') > before.lastIndexOf('*/', before.length - 3)
}

describe("flakeproof's library API", () => {
  const exported = exportsOf(join(ROOT, 'src/index.ts'))

  it('exports the statistics with named options and the artifact schemas', () => {
    const names = exported.map((e) => e.name)
    for (const name of ['wilsonInterval', 'IntervalWidth', 'computeRunsNeeded', 'RunsNeededOptions', 'computeQuarantineAfter', 'QuarantineOptions', 'RateFileSchema']) expect(names).toContain(name)
  })

  it('documents every export with JSDoc', () => {
    expect(exported.filter((e) => !e.documented).map((e) => `${e.name} (${e.file.slice(ROOT.length + 1)})`)).toEqual([])
  })
})
