import { relative } from 'node:path'
import type { TestCase, TestModule } from 'vitest/node'
import { assignTestIds, formatTestId, type TestIdentity } from '../../src/session/adapter.js'

/** A file relative to its project's root, with forward slashes: the `file` of an id on every OS. */
export function relativeFile(root: string, file: string): string {
  return relative(root, file).split('\\').join('/')
}

/** The id prefix of a module's tests (`[project] file`), as the core formats it. */
export function moduleId(module: TestModule): string {
  return formatTestId({ project: module.project.name, file: relativeFile(module.project.config.root, module.moduleId), path: [] })
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
      const file = relativeFile(module.project.config.root, module.moduleId)
      const identities = tests.map((t): TestIdentity => ({ project: module.project.name, file, path: namesOf(t) }))
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
