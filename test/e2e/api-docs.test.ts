import { execFileSync, spawnSync } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT, tempDir } from '../utils.js'

/**
 * docs/api.md's examples are what a user would paste: each ```ts block becomes a module of a new
 * project that depends on the built package (node_modules/flakeproof → this checkout, resolved
 * through package.json `exports` as from npm), is typechecked strictly with tsc, compiled and run,
 * and prints exactly the values its `// →` comments say.
 */

const blocks = [...readFileSync(join(ROOT, 'docs/api.md'), 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] ?? '')

/** What a block's `// → …` comments say it prints, in order. */
function expectedOutput(block: string): string[] {
  return block.split('\n').flatMap((line) => {
    const said = /\/\/ → (.*)$/.exec(line)
    return said ? [said[1] ?? ''] : []
  })
}

describe('docs/api.md', () => {
  const project = tempDir('flakeproof-api-docs-')
  mkdirSync(join(project, 'src'))
  mkdirSync(join(project, 'node_modules'))
  symlinkSync(ROOT, join(project, 'node_modules/flakeproof'), 'dir')
  // Node's types, as a user's project has them; nothing else of this checkout is visible.
  symlinkSync(join(ROOT, 'node_modules/@types'), join(project, 'node_modules/@types'), 'dir')
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'api-docs-user', private: true, type: 'module' }))
  writeFileSync(
    join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { strict: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', rootDir: 'src', outDir: 'out', types: ['node'], skipLibCheck: false, noUnusedLocals: true },
      include: ['src'],
    }),
  )
  blocks.forEach((block, i) => writeFileSync(join(project, 'src', `example-${i + 1}.ts`), block))

  it('has examples, each printing what it says', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(6)
    for (const block of blocks) expect(expectedOutput(block).length, block).toBeGreaterThan(0)
  })

  it('typechecks strictly against the built package (an unused @ts-expect-error fails too) and runs as written', { timeout: 120_000 }, () => {
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc')
    const compiled = spawnSync(process.execPath, [tsc, '-p', project], { cwd: project, encoding: 'utf8' })
    expect(compiled.status, `${compiled.stdout}${compiled.stderr}`).toBe(0)
    expect(readdirSync(join(project, 'out')).sort()).toEqual(blocks.map((_, i) => `example-${i + 1}.js`).sort())
    blocks.forEach((block, i) => {
      const printed = execFileSync(process.execPath, [join(project, 'out', `example-${i + 1}.js`)], { cwd: project, encoding: 'utf8' })
      expect(printed.trimEnd().split('\n'), `example ${i + 1}`).toEqual(expectedOutput(block))
    })
  })
})
