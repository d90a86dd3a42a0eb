import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { projectCopyBin } from '../../src/cli/project-copy.js'
import { tempDir } from '../utils.js'

/** A copy of flakeproof at `root`: its package.json with `bin` as given, and the bin file unless `missing`. */
function copyAt(root: string, bin: string | Record<string, string>, missing = false): string {
  mkdirSync(root, { recursive: true })
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'flakeproof', bin, exports: { './package.json': './package.json' } }))
  const relative = typeof bin === 'string' ? bin : (bin.flakeproof ?? '')
  if (!missing) {
    mkdirSync(dirname(join(root, relative)), { recursive: true })
    writeFileSync(join(root, relative), '')
  }
  return join(root, relative)
}

describe('projectCopyBin: the project’s own flakeproof runs when the CLI is another copy', () => {
  // This CLI: a copy outside every project below (a global install).
  const global = tempDir()
  const selfBin = copyAt(join(global, 'lib/node_modules/flakeproof'), { flakeproof: './dist/src/cli/bin.js' })

  const cases: { name: string; layout: (project: string) => string | undefined }[] = [
    { name: 'no flakeproof in the project: this copy', layout: () => undefined },
    {
      name: 'the project’s copy is this one (a link to it): this copy',
      layout: (project) => {
        mkdirSync(join(project, 'node_modules'))
        symlinkSync(join(global, 'lib/node_modules/flakeproof'), join(project, 'node_modules/flakeproof'))
        return undefined
      },
    },
    { name: 'another copy in the project: its bin', layout: (project) => copyAt(join(project, 'node_modules/flakeproof'), { flakeproof: './dist/src/cli/bin.js' }) },
    { name: 'another copy whose bin is a plain string: its bin', layout: (project) => copyAt(join(project, 'node_modules/flakeproof'), 'bin/cli.js') },
    { name: 'another copy without its bin file (a broken install): this copy', layout: (project) => void copyAt(join(project, 'node_modules/flakeproof'), { flakeproof: './dist/src/cli/bin.js' }, true) },
    { name: 'another copy whose package.json names no bin: this copy', layout: (project) => void copyAt(join(project, 'node_modules/flakeproof'), {}, true) },
  ]
  it.each(cases)('$name', ({ layout }) => {
    const project = tempDir()
    writeFileSync(join(project, 'package.json'), '{}')
    const expected = layout(project)
    expect(projectCopyBin(project, selfBin)).toBe(expected && realpathSync(expected))
  })

  it('finds a copy hoisted to the root of a workspace from a package folder below it', () => {
    const root = tempDir()
    const bin = copyAt(join(root, 'node_modules/flakeproof'), { flakeproof: './dist/src/cli/bin.js' })
    const pkg = join(root, 'packages/app')
    mkdirSync(pkg, { recursive: true })
    writeFileSync(join(pkg, 'package.json'), '{}')
    expect(projectCopyBin(pkg, selfBin)).toBe(realpathSync(bin))
  })
})
