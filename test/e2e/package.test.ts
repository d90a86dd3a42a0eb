import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../utils.js'

/** What npm shows of the package, and what `npm publish` would ship. */
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown>

describe('the published package', () => {
  it('carries its MIT licence as a file, as package.json says', () => {
    expect(pkg.license).toBe('MIT')
    expect(readFileSync(join(ROOT, 'LICENSE'), 'utf8').split('\n')[0]).toBe('MIT License')
  })

  it('says where its source, home page and issues are (one repository), what it is about, and asks for no funding', () => {
    const repository = pkg.repository as { type: string; url: string }
    const slug = /^git\+https:\/\/github\.com\/([\w.-]+\/[\w.-]+)\.git$/.exec(repository.url)?.[1]
    expect(repository.type).toBe('git')
    expect(slug).toBeDefined()
    expect(pkg.homepage).toBe(`https://github.com/${slug}#readme`)
    expect(pkg.bugs).toEqual({ url: `https://github.com/${slug}/issues` })
    expect(pkg.keywords).toEqual(expect.arrayContaining(['flaky-tests', 'vitest', 'jest', 'junit']))
    expect(pkg).not.toHaveProperty('funding')
  })

  it('packs the licence, the README and the built code, nothing else', () => {
    const [packed] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8' })) as { files: { path: string }[] }[]
    const paths = (packed?.files ?? []).map((f) => f.path)
    expect(paths).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'package.json', 'dist/src/index.js', 'dist/src/index.d.ts']))
    expect(paths.filter((p) => !['LICENSE', 'README.md', 'package.json'].includes(p) && !p.startsWith('dist/'))).toEqual([])
  }, 60_000)

  it('keeps the browser page\'s recorder and everything it imports free of node:* once bundled (scripts/bundle-dist.mjs)', () => {
    // test/unit/layering.test.ts checks the sources; the chunks of the build group their modules anew.
    const seen = new Set<string>()
    const external: string[] = []
    const visit = (file: string): void => {
      if (seen.has(file)) return
      seen.add(file)
      for (const m of readFileSync(file, 'utf8').matchAll(/\bfrom\s*"([^"]+)"|\bimport\s*"([^"]+)"|\bimport\(\s*"([^"]+)"/g)) {
        const specifier = (m[1] ?? m[2] ?? m[3]) as string
        if (specifier.startsWith('.')) visit(join(dirname(file), specifier))
        else external.push(specifier)
      }
    }
    visit(join(ROOT, 'dist/plugin/vitest/browser-recorder.js'))
    expect(seen.size).toBeGreaterThan(1)
    expect([...new Set(external)]).toEqual(['vitest'])
  })

  it('loads zod from its own bundle of the members it uses: no built module imports the zod package (scripts/bundle-zod.mjs)', () => {
    const built = readdirSync(join(ROOT, 'dist'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js'))
    expect(built.length).toBeGreaterThan(50)
    expect(built.filter((f) => /\bfrom\s*['"]zod(\/[^'"]*)?['"]|\bimport\(\s*['"]zod/.test(readFileSync(join(ROOT, 'dist', f), 'utf8')))).toEqual([])
    // The bundle is whole (what the CLI and the schemas reach, English error messages) and no more
    // than that: no other locale (German, Spanish), no zod whole (which is over three times the size).
    // scripts/bundle-dist.mjs puts it in a chunk of its own, which every module that needs zod imports.
    const chunks = built.filter((f) => /^flakeproof-chunks\/_zod-[\w-]+\.js$/.test(f))
    expect(chunks).toHaveLength(1)
    const bundle = readFileSync(join(ROOT, 'dist', chunks[0] as string), 'utf8')
    expect(bundle).toMatch(/^export \{ .*\bobject as \w+\b.*\};?$/m)
    expect(bundle).toContain('Invalid input: expected')
    expect(bundle).not.toMatch(/Ungültige Eingabe|Entrada inválida/)
    expect(bundle.length).toBeLessThan(350_000)
    // A copy of zod carries its licence, and the version package.json pins, so the types match the code.
    const zodVersion = (pkg.dependencies as Record<string, string>).zod
    expect(zodVersion).toMatch(/^\d+\.\d+\.\d+$/)
    expect(bundle).toContain(`/*! The members of zod ${zodVersion} that flakeproof uses`)
    expect(bundle).toContain(readFileSync(join(ROOT, 'node_modules/zod/LICENSE'), 'utf8').trim())
  })
})
