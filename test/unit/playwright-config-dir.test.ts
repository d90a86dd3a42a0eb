import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { playwrightConfigDir } from '../../plugin/playwright/_config-dir.js'
import { tempDir } from '../utils.js'

/**
 * The folder `flakeproof playwright` checks its output paths against before Playwright starts: the
 * one Playwright 1.65.1 takes (lib/common/index.js `resolveConfigLocation`, and its reporter's
 * `dirname(config.configFile)`). A folder given as the config is its own, with or without a
 * playwright.config.* in it; a file gives its folder; none given, the working folder.
 */
describe('playwrightConfigDir: where Playwright’s config puts the project root', () => {
  const cwd = tempDir()
  mkdirSync(join(cwd, 'e2e/nested'), { recursive: true })
  writeFileSync(join(cwd, 'e2e/playwright.config.ts'), '')
  writeFileSync(join(cwd, 'e2e/nested/pw.config.js'), '')

  it.each<[string, string[], string | undefined]>([
    ['no config given: the working folder', ['tests/a.spec.ts', '--project=desktop'], cwd],
    ['-c <file>', ['-c', 'e2e/nested/pw.config.js'], join(cwd, 'e2e/nested')],
    ['--config <file>', ['--config', 'e2e/playwright.config.ts'], join(cwd, 'e2e')],
    ['--config=<file>', ['--config=e2e/playwright.config.ts'], join(cwd, 'e2e')],
    ['-c<file>, as its CLI reads a short flag with its value', ['-ce2e/nested/pw.config.js'], join(cwd, 'e2e/nested')],
    ['a folder with a config in it', ['-c', 'e2e'], join(cwd, 'e2e')],
    ['a folder without one: still that folder', ['-c', 'e2e/nested'], join(cwd, 'e2e/nested')],
    ['the last one given', ['-c', 'e2e', '--config', 'e2e/nested/pw.config.js'], join(cwd, 'e2e/nested')],
    ['a path that does not exist: Playwright’s to report', ['-c', 'none.config.ts'], undefined],
    ['after --, not Playwright’s', ['--', '-c', 'e2e'], cwd],
    // Another option's value is never the config, whatever it starts with.
    ['a grep for "-ce2e"', ['-g', '-ce2e', 'tests/a.spec.ts'], cwd],
    ['a reporter named -c…, then the config', ['--reporter', '-cdot', '--config', 'e2e'], join(cwd, 'e2e')],
  ])('%s', (_name, args, expected) => {
    expect(playwrightConfigDir(cwd, args)).toBe(expected)
  })
})
