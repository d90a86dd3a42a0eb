import { relative } from 'node:path'
import type { TestCase, TestModule } from 'vitest/node'
import { assignTestIds, formatTestId, type TestIdentity, type TestMode } from '../../src/session/adapter.js'

/** A file relative to its project's root, with forward slashes: the `file` of an id on every OS. */
export function relativeFile(root: string, file: string): string {
  return relative(root, file).split('\\').join('/')
}

/** The id prefix of a module's tests (`[project] file`, `[project] [typecheck] file`), as the core formats it. */
export function moduleId(module: TestModule): string {
  return formatTestId({ ...whereIs(module), path: [] })
}

/**
 * A module's part of its tests' identity. Typecheck enabled on the files that also run makes two
 * modules of one file in one project, the type tests named as the runtime ones: the mode tells them apart.
 */
function whereIs(module: TestModule): { project: string; file: string; mode?: TestMode } {
  const where = { project: module.project.name, file: relativeFile(module.project.config.root, module.moduleId) }
  return module.meta().typecheck === true ? { ...where, mode: 'typecheck' } : where
}

/**
 * Our ids of Vitest's test cases, from the core (src/core/test-id.ts), assigned a module at a time
 * so same-named tests get ` (#2)` in declaration order, as the runner assigns them.
 */
export class TestIds {
  private readonly _byModule = new WeakMap<TestModule, Map<string, { id: string; identity: TestIdentity }>>()

  of(testCase: TestCase): { id: string; identity: TestIdentity } {
    const module = testCase.module
    let ids = this._byModule.get(module)
    if (!ids) {
      const tests = [...module.children.allTests()]
      const where = whereIs(module)
      const identities = tests.map((t): TestIdentity => ({ ...where, path: namesOf(t) }))
      const assigned = assignTestIds(identities)
      ids = new Map(tests.map((t, i) => [t.id, { id: assigned[i] as string, identity: identities[i] as TestIdentity }]))
      this._byModule.set(module, ids)
    }
    const found = ids.get(testCase.id)
    // Every test case is among its module's tests; a miss is a bug, reported once by the caller's guard.
    if (!found) throw new Error(`test ${testCase.id} is not among the tests of ${module.moduleId}`)
    return found
  }
}

function namesOf(testCase: TestCase): string[] {
  const names = [testCase.name]
  for (let parent = testCase.parent; parent.type === 'suite'; parent = parent.parent) names.unshift(parent.name)
  return names
}
