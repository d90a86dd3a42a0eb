import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { flakeproof } from '../../plugin/vitest/plugin.js'
import { escapeRegExp } from '../../src/core/hints.js'
import { ROOT } from '../utils.js'

/**
 * The plugin makes flakeproof's own files external to Vite: Node loads the runner in each worker as
 * it is, even where flakeproof resolves outside node_modules (a linked package), where Vite would
 * otherwise transform every one of its modules in every run. Run from the sources here, the package's
 * folder is the repository (plugin/vitest/ is two folders down, as dist/plugin/vitest/ is in the package).
 */
describe('flakeproof() in a Vitest config', () => {
  const config = flakeproof({ repeat: 2 }).config({ root: ROOT })
  const external = config?.test.server.deps.external ?? []
  const isExternal = (path: string) => external.some((pattern) => pattern.test(path))

  it.each([
    ['its runner', config?.test.runner ?? '', true],
    ['a module beside it', join(ROOT, 'src/session/worker.js'), true],
    // The user's files stay Vite's: their tests and setup files need its transforms.
    ['a test file of the project', '/home/user/app/tests/cart.test.ts', false],
    // A folder whose name only starts with the package's: the pattern ends at its separator.
    ['a sibling folder of the package', `${ROOT}-copy/plugin/vitest/runner.js`, false],
  ])('%s (%s): external, %s', (_, path, expected) => {
    expect(isExternal(path)).toBe(expected)
  })

  it.each([
    // A package folder of a fetched mirror (owner+name): "+" and "." are themselves, not operators.
    ['/work/.mirror/owner+name/dist/', true],
    ['/work/xmirror/owner+name/dist/', false],
    ['/work/.mirror/ownerrname/dist/', false],
  ])('the folder is matched literally: %s %s', (path, expected) => {
    expect(new RegExp(`^${escapeRegExp('/work/.mirror/owner+name/')}`).test(path)).toBe(expected)
  })
})

describe("flakeproof() and Vitest's includeTaskLocation", () => {
  // A test's location is read by GitHub annotations alone (`line=`): elsewhere the plugin leaves the
  // user's setting as it is, and Vitest takes no stack of each test's declaration for it.
  it.each([
    ['under GitHub Actions', 'true', true],
    ['elsewhere', undefined, undefined],
    ['with GITHUB_ACTIONS set to anything but true', 'false', undefined],
  ])('%s: %s', (_, actions, expected) => {
    const before = process.env.GITHUB_ACTIONS
    if (actions === undefined) delete process.env.GITHUB_ACTIONS
    else process.env.GITHUB_ACTIONS = actions
    try {
      expect(flakeproof({ repeat: 2 }).config({ root: ROOT })?.test.includeTaskLocation).toBe(expected)
    } finally {
      if (before === undefined) delete process.env.GITHUB_ACTIONS
      else process.env.GITHUB_ACTIONS = before
    }
  })
})
