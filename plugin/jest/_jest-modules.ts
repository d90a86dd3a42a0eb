import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

/**
 * Where the project's own Jest packages are, found as Jest itself finds them: `jest`, then each
 * package from the one that depends on it (`jest` → `jest-cli` → `@jest/core` → `jest-config` →
 * `jest-circus`), so a strict layout (pnpm) that hoists none of them still resolves. Main process and
 * workers alike; node built-ins only.
 */
export interface JestModules {
  /** `node_modules/jest/build/index.js` of the project. */
  jest: string
  jestCli: string
  core: string
  config: string
  /** Jest's default test runner (`jest-circus/runner`), what flakeproof's runner hands each file to. */
  circus: string
  /** jest-message-util: Jest's own failure blocks, as its runner formats them. */
  messageUtil: string
}

/** The project's Jest packages from `rootDir`; undefined when Jest is not installed there. */
export function jestModules(rootDir: string): JestModules | undefined {
  let jest: string
  try {
    jest = createRequire(join(rootDir, 'package.json')).resolve('jest')
  } catch {
    return undefined
  }
  const jestCli = createRequire(jest).resolve('jest-cli')
  const core = createRequire(jestCli).resolve('@jest/core')
  const config = createRequire(core).resolve('jest-config')
  const circus = createRequire(config).resolve('jest-circus/runner')
  const messageUtil = createRequire(core).resolve('jest-message-util')
  return { jest, jestCli, core, config, circus, messageUtil }
}

/** Jest 29 keeps `buildArgv` in jest-cli's run.js; 30 exports it from `jest`. */
export function jestCliRun(modules: JestModules): string {
  return join(dirname(modules.jestCli), 'run.js')
}
