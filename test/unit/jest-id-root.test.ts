import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { idRootOf } from '../../plugin/jest/_id-root.js'
import { tempDir } from '../utils.js'

describe('idRootOf: what Jest test files are named relative to in ids', () => {
  it.each([
    { case: 'a config at the package root: the rootDir itself', rootDir: 'pkg', expected: 'pkg' },
    { case: "a config in scripts/jest/ (react-hook-form's): the package above it", rootDir: 'pkg/scripts/jest', expected: 'pkg' },
    { case: 'a package inside the package (packages/a): the nearest one', rootDir: 'pkg/packages/a/config', expected: 'pkg/packages/a' },
  ])('$case', ({ rootDir, expected }) => {
    const root = tempDir()
    for (const dir of ['pkg', 'pkg/packages/a']) {
      mkdirSync(join(root, dir), { recursive: true })
      writeFileSync(join(root, dir, 'package.json'), '{}')
    }
    mkdirSync(join(root, rootDir), { recursive: true })
    expect(idRootOf(join(root, rootDir))).toBe(join(root, expected))
  })
})
