import { existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { pruneKept } from '../consumers.js'
import { tempDir } from '../utils.js'

const HOUR = 3_600_000
const DAY = 24 * HOUR

describe('pruneKept: the suite’s kept installs and projects go once no run will use them again', () => {
  // Each entry of a cache folder: its name, when it was last used, and for a project the checkout it belongs to.
  const cases: { name: string; unused: number; checkout?: 'gone' | 'here'; file?: true; kept: boolean }[] = [
    { name: 'a project of a deleted clone, unused for 2 days', unused: 2 * DAY, checkout: 'gone', kept: false },
    { name: 'a project of a deleted clone, used an hour ago (cloned again at the same path)', unused: HOUR, checkout: 'gone', kept: true },
    { name: 'a project of a checkout still here, unused for 6 days', unused: 6 * DAY, checkout: 'here', kept: true },
    { name: 'a project of a checkout still here, unused for 8 days', unused: 8 * DAY, checkout: 'here', kept: false },
    { name: 'an install (shared by every checkout), unused for 6 days', unused: 6 * DAY, kept: true },
    { name: 'an install, unused for 8 days', unused: 8 * DAY, kept: false },
    // Tarballs are packTarball's: it removes older builds' after a day.
    { name: 'a tarball file, 8 days old', unused: 8 * DAY, file: true, kept: true },
  ]

  it('removes exactly the stale ones, by when each was last used', () => {
    const now = Date.UTC(2026, 11, 6, 12)
    const cache = tempDir()
    const here = tempDir()
    for (const [index, c] of cases.entries()) {
      const path = join(cache, `entry-${index}`)
      if (c.file) writeFileSync(path, '')
      else {
        mkdirSync(join(path, 'node_modules'), { recursive: true })
        if (c.checkout) writeFileSync(join(path, '.flakeproof-checkout'), c.checkout === 'here' ? here : join(here, 'deleted-clone'))
      }
      const at = new Date(now - c.unused)
      utimesSync(path, at, at)
    }

    pruneKept(cache, now)

    expect(Object.fromEntries(cases.map((c, index) => [c.name, existsSync(join(cache, `entry-${index}`))]))).toEqual(Object.fromEntries(cases.map((c) => [c.name, c.kept])))
    // Nothing is left half removed beside them.
    expect(readdirSync(cache).filter((name) => name.includes('.stale-'))).toEqual([])
  })

  it('does nothing where there is no cache yet', () => {
    expect(() => pruneKept(join(tempDir(), 'none'), Date.now())).not.toThrow()
  })
})
