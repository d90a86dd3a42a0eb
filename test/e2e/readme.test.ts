import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../utils.js'

/**
 * The README is a front door (issue 21): what flakeproof is, install, three quick starts, a short
 * reading of the numbers, and links to the guides in docs/ where everything else moved. These
 * checks keep it that way, and keep every link of the README and the guides pointing at a file.
 */

const README = readFileSync(join(ROOT, 'README.md'), 'utf8')
const pages = (dir: string): string[] => readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? pages(join(dir, e.name)) : e.name.endsWith('.md') ? [join(dir, e.name)] : []))
const DOCS = ['README.md', ...pages('docs')]

/** Relative link targets of a markdown file, outside code blocks, without their #anchor. */
function links(text: string): string[] {
  const prose = text.replace(/```[\s\S]*?```/g, '')
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] ?? '').filter((t) => !/^(https?:|mailto:|#)/.test(t)).map((t) => t.split('#')[0] ?? t)
}

describe('README.md', () => {
  it('is a front door: at most 300 lines, with the install command and the three quick starts', () => {
    expect(README.split('\n').length).toBeLessThanOrEqual(300)
    expect(README).toContain('npm i -D flakeproof')
    for (const heading of ['## Quick start: Vitest', '## Quick start: Jest', '## Quick start: any command', '## Reading the numbers', '## Guides']) expect(README).toContain(heading)
  })

  it('keeps the two commands a fresh clone runs, and they are scripts of package.json', () => {
    expect(README).toContain('npm ci && npm run demo')
    expect(README).toContain('npm ci && npm test')
    const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    expect(Object.keys(scripts)).toEqual(expect.arrayContaining(['demo', 'test']))
  })

  it('links every guide page in docs/', () => {
    const linked = new Set(links(README))
    expect(pages('docs').filter((page) => !linked.has(page))).toEqual([])
  })
})

describe.each(DOCS)('%s', (page) => {
  it('links only to files that exist', () => {
    const missing = links(readFileSync(join(ROOT, page), 'utf8')).filter((target) => !existsSync(join(ROOT, dirname(page), target)))
    expect(missing).toEqual([])
  })
})
