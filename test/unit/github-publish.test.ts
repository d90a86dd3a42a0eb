import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { appendStepSummary } from '../../src/artifacts/step-summary.js'
import { publishToGithub } from '../../src/pipeline/github.js'
import { rateFile, testRate } from '../rate-file.js'
import { tempDir } from '../utils.js'

// 5/20 at 95%: Wilson [11.2%, 46.9%] (hand arithmetic, as in github-summary.test.ts).
const flaky = testRate('cart > adds an item', 5, 0.112, 0.469, 'flaky')
const bundle = { rate: rateFile({ trials: 20, failures: 5, rate: 0.25, ci_low: 0.112, ci_high: 0.469 }, { tests: [flaky] }) }

/** A checkout with tests/a.test.ts declaring the test on line 3 (counted by hand), and a step summary already holding a line. */
function checkout(): { workspace: string; summary: string } {
  const workspace = tempDir()
  mkdirSync(join(workspace, 'tests'))
  writeFileSync(join(workspace, 'tests/a.test.ts'), "import { describe, test } from 'vitest'\ndescribe('cart', () => {\n  test('adds an item', () => {})\n})\n")
  const summary = join(workspace, 'summary.md')
  writeFileSync(summary, 'earlier step\n')
  return { workspace, summary }
}

describe('publishToGithub', () => {
  it('appends to the step summary and finds the line in the source when Vitest gave none', () => {
    const { workspace, summary } = checkout()
    const env = { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary, GITHUB_WORKSPACE: workspace }
    const lines = publishToGithub(bundle, { env, rootOf: () => workspace })
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/^::warning file=tests\/a\.test\.ts,line=3,title=/)
    const text = readFileSync(summary, 'utf8')
    expect(text.startsWith('earlier step\n## flakeproof: `vitest run`\n')).toBe(true)
  })

  it('prefers the location Vitest gave', () => {
    const { workspace, summary } = checkout()
    const env = { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary, GITHUB_WORKSPACE: workspace }
    const locations = new Map([[flaky.id, { file: join(workspace, 'tests/a.test.ts'), line: 30 }]])
    expect(publishToGithub(bundle, { env, rootOf: () => workspace, locations })[0]).toContain('file=tests/a.test.ts,line=30,')
  })

  it('leaves file and line out for a test outside the workspace', () => {
    const { summary } = checkout()
    const env = { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary, GITHUB_WORKSPACE: tempDir() }
    expect(publishToGithub(bundle, { env, rootOf: () => checkout().workspace })[0]).toMatch(/^::warning title=/)
  })

  it.each([{}, { GITHUB_ACTIONS: 'false' }, { CI: 'true' }])('does nothing outside GitHub Actions (%j)', (vars) => {
    const summary = join(tempDir(), 'summary.md')
    expect(publishToGithub(bundle, { env: { ...vars, GITHUB_STEP_SUMMARY: summary }, rootOf: () => '.' })).toEqual([])
    expect(existsSync(summary)).toBe(false)
  })

  it('still annotates when no summary file is named', () => {
    const { workspace } = checkout()
    expect(publishToGithub(bundle, { env: { GITHUB_ACTIONS: 'true', GITHUB_WORKSPACE: workspace }, rootOf: () => workspace })).toHaveLength(1)
  })
})

describe('appendStepSummary', () => {
  it('fails with E_WRITE, naming the variable and the path, when the path is a folder', () => {
    const folder = tempDir()
    expect(() => appendStepSummary(folder, 'x')).toThrow(expect.objectContaining({ code: 'E_WRITE', message: expect.stringContaining(`GITHUB_STEP_SUMMARY ${folder} could not be appended to (EISDIR)`) }))
  })
})
