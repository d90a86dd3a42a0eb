/**
 * `setupFilesAfterEnv: ['flakeproof/jest/setup']`: repeats each selected test in-process when the
 * flakeproof reporter (or `flakeproof jest`) asks for it (plugin/jest/_repeat.ts). CommonJS, because
 * Jest loads setup files through its own CommonJS registry unless the project runs as native ESM. The
 * work is loaded by Node's own loader (ES modules by require: Node 20.19 and later), once per worker rather than once per test file, and outside the test's context, where fake timers cannot reach.
 */
/** Node's loader, under the class Jest's `require('node:module')` gives (jest-runtime copies its statics). */
interface NodeLoader {
  _load(request: string, parent: null, isMain: boolean): unknown
}

// Jest's own `createRequire` and `process.getBuiltinModule` load through its registry, which refuses
// ES modules; `Module._load` is Node's (jest-runtime's class extends Node's and copies its statics).
const { Module } = require('node:module') as { Module: NodeLoader }
const { join } = require('node:path') as typeof import('node:path')
const { installRepeat } = Module._load(join(__dirname, '_repeat.js'), null, false) as typeof import('./_repeat.js')

installRepeat(globalThis as unknown as Parameters<typeof installRepeat>[0])
