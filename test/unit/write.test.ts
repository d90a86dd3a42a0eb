import { spawnSync } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { assertWritable, JsonLinesWriter, removeFiles, writeJsonAtomic, writeTextAtomic } from '../../src/artifacts/write.js'
import { tempDir } from '../utils.js'

const Line = z.object({ n: z.number() })

/** A folder holding `target.txt` ("keep") and a symlink `link` to it. */
function planted(): { dir: string; target: string; link: string } {
  const dir = tempDir()
  const target = join(dir, 'target.txt')
  writeFileSync(target, 'keep\n')
  symlinkSync(target, join(dir, 'link'))
  return { dir, target, link: join(dir, 'link') }
}

describe('writes never go through a symlink or replace a non-regular file', () => {
  it.each([
    ['writeJsonAtomic', (path: string) => writeJsonAtomic(path, Line, { n: 1 })],
    ['writeTextAtomic', (path: string) => writeTextAtomic(path, 'text')],
    ['JsonLinesWriter', (path: string) => new JsonLinesWriter(path, Line)],
    ['assertWritable', (path: string) => assertWritable(path, '--out')],
  ])('%s refuses a symlink, leaves its target and the folder as they were', (_name, write) => {
    const { dir, target, link } = planted()
    expect(() => write(link)).toThrow(/is a symbolic link, not a regular file/)
    expect(readFileSync(target, 'utf8')).toBe('keep\n')
    expect(readdirSync(dir).sort()).toEqual(['link', 'target.txt'])
  })

  it.each([
    ['writeJsonAtomic', 'E_WRITE', (path: string) => writeJsonAtomic(path, Line, { n: 1 })],
    ['writeTextAtomic', 'E_WRITE', (path: string) => writeTextAtomic(path, 'text')],
    ['JsonLinesWriter', 'E_OUTPUT', (path: string) => new JsonLinesWriter(path, Line)],
    ['assertWritable', 'E_OUTPUT', (path: string) => assertWritable(path, '--out')],
  ])('%s refuses a folder and a FIFO with %s, leaving no temp file', (_name, code, write) => {
    const dir = tempDir()
    mkdirSync(join(dir, 'folder'))
    spawnSync('mkfifo', [join(dir, 'fifo')])
    expect(() => write(join(dir, 'folder'))).toThrow(expect.objectContaining({ code, message: expect.stringContaining('is a folder') }))
    expect(() => write(join(dir, 'fifo'))).toThrow(expect.objectContaining({ code, message: expect.stringContaining('is a named pipe') }))
    expect(readdirSync(dir).sort()).toEqual(['fifo', 'folder'])
  })

  it('removeFiles checks every name before removing any', () => {
    const { dir, link } = planted()
    writeFileSync(join(dir, 'rate.json'), '{}')
    expect(() => removeFiles(dir, ['rate.json', 'link'])).toThrow(`${link} is a symbolic link`)
    expect(readdirSync(dir).sort()).toEqual(['link', 'rate.json', 'target.txt'])
    removeFiles(dir, ['rate.json', 'missing.json'])
    expect(readdirSync(dir).sort()).toEqual(['link', 'target.txt'])
  })
})

describe('regular writes', () => {
  it('replaces a regular file atomically and leaves only it behind', () => {
    const dir = tempDir()
    const path = join(dir, 'rate.json')
    writeFileSync(path, 'old')
    expect(writeJsonAtomic(path, Line, { n: 2 })).toEqual({ n: 2 })
    expect(readFileSync(path, 'utf8')).toBe('{\n  "n": 2\n}\n')
    writeTextAtomic(join(dir, 'report.md'), '# r\n')
    expect(readdirSync(dir).sort()).toEqual(['rate.json', 'report.md'])
  })

  it('JsonLinesWriter truncates a regular file and appends whole lines', () => {
    const path = join(tempDir(), 'facts.jsonl')
    writeFileSync(path, 'an older collection\n')
    const writer = new JsonLinesWriter(path, Line)
    writer.append({ n: 1 })
    writer.appendAll([{ n: 2 }, { n: 3 }])
    writer.close()
    expect(readFileSync(path, 'utf8')).toBe('{"n":1}\n{"n":2}\n{"n":3}\n')
  })
})
