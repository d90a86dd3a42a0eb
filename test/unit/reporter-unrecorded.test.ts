import { join } from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import type { TestCase, TestModule } from 'vitest/node'
import FlakeproofReporter from '../../plugin/vitest/reporter.js'
import { RateFileSchema } from '../../src/artifacts/schemas.js'
import type { TestEvidence } from '../../src/pipeline/test-evidence.js'
import { readArtifact, tempDir } from '../utils.js'

/**
 * The reporter's net under the pool checks (plugin/vitest/_browser.ts): a test that ended with no
 * evidence from flakeproof's runner, in a measuring run, is a run error of its file, never a test
 * left out in silence. Vitest's objects reduced to what the reporter reads of them.
 */
function moduleWith(root: string, tests: { name: string; evidence?: TestEvidence }[]): TestModule {
  const module = {
    type: 'module',
    moduleId: join(root, 'tests/a.test.ts'),
    project: { name: '', config: { root } },
    meta: () => ({}),
    errors: () => [],
    children: { allTests: () => cases.values(), allSuites: () => [].values() },
  }
  const cases = tests.map(({ name, evidence }) => ({
    id: name,
    name,
    fullName: name,
    type: 'test',
    module,
    parent: module,
    location: undefined,
    meta: () => (evidence ? { flakeproof: evidence } : {}),
    result: () => ({ state: 'passed', errors: [] }),
    diagnostic: () => ({ duration: 1 }),
  }))
  return module as unknown as TestModule
}

const threeRuns = (id: string): TestEvidence => ({
  id,
  path: [id.split(' > ')[1] as string],
  order: 1,
  previousTest: null,
  worker: '1',
  seed: null,
  repetitions: [0, 1, 2].map(() => ({ ok: true, elapsedMs: 1, mode: 'fast' as const, gapMs: 0 })),
})

describe('a measuring run in which a test ended without the runner having seen it', () => {
  it('counts the measured test, and names the file of the unmeasured ones in an incomplete run', () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {})
    const root = tempDir('flakeproof-unit-')
    const out = join(root, 'out')
    const reporter = new FlakeproofReporter({ runnerMode: 'measure', repeat: 3, outDir: out, outAnywhere: true })
    const module = moduleWith(root, [{ name: 'measured', evidence: threeRuns('tests/a.test.ts > measured') }, { name: 'missed' }, { name: 'missed too' }])
    reporter.onTestRunStart()
    for (const testCase of module.children.allTests()) reporter.onTestCaseResult(testCase as TestCase)
    reporter.onTestRunEnd([module], [], 'passed')
    log.mockRestore()
    const rate = readArtifact(join(out, 'rate.json'), RateFileSchema)
    expect(rate.tests?.map((t) => [t.id, t.trials])).toEqual([['tests/a.test.ts > measured', 3]])
    expect(rate.complete).toBe(false)
    expect(rate.run_errors).toEqual([
      {
        project: '',
        file: 'tests/a.test.ts',
        error: "2 test(s) ran without flakeproof's runner, once each, so no file counts them; please report it to flakeproof with your Vitest version and config",
      },
    ])
  })
})
