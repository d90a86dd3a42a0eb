import { realpathSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { resolveJestOptions } from '../../src/config/jest-options.js'
import { extractVitestFlags } from '../../src/config/vitest-options.js'
import { FlakeproofError } from '../../src/errors.js'
import { JEST_VERDICT, type JestRunVerdict } from './reporter.js'

const REPORTER = fileURLToPath(new URL('./reporter.js', import.meta.url))
const SETUP = fileURLToPath(new URL('./setup.cjs', import.meta.url))

type Reporter = string | [string, Record<string, unknown>]
interface JestArgv {
  reporters?: Reporter[]
  setupFilesAfterEnv?: string[]
  projects?: string[]
  [key: string]: unknown
}
/** The programmatic entry points of the `jest` package (29 and 30). */
interface JestPackage {
  buildArgv(args: string[]): Promise<JestArgv>
  runCLI(argv: JestArgv, projects: string[]): Promise<{ results: { success: boolean }; globalConfig: { testFailureExitCode: number } }>
}
interface JestConfig {
  readConfigs(argv: JestArgv, projects: string[]): Promise<{ globalConfig: { reporters?: Reporter[] }; configs: { setupFilesAfterEnv: string[] }[] }>
}

/**
 * `flakeproof jest [--flaky-*] [jest args]` (docs/contracts.md §12): Jest's own entry points, in this
 * process, with flakeproof's reporter and setup file *added* to the resolved config — Jest's CLI flags
 * `--reporters` and `--setupFilesAfterEnv` would replace the user's. Every other argument goes to
 * Jest's parser untouched. Returns the exit code: Jest's, except that a measurement's failed copies
 * are advisory (as with Vitest) unless `--flaky-fail-on-flaky`, and a failed proof is 1.
 */
export async function runJestWrapper(args: readonly string[]): Promise<number> {
  const resolved = resolveJestOptions({}, args, process.env)
  const { rest } = extractVitestFlags(args)
  const { jest, config } = loadJest(process.cwd())
  const argv = await jest.buildArgv(rest)
  const projects = argv.projects && argv.projects.length > 0 ? argv.projects : [process.cwd()]
  const { globalConfig, configs } = await config.readConfigs(argv, projects)
  const command = `flakeproof jest ${args.join(' ')}`.trim()
  const reporters = (globalConfig.reporters ?? ['default']).filter((r) => !isOurs(Array.isArray(r) ? r[0] : r, REPORTER))
  const ourOptions = { ...(resolved ?? {}), command }
  const setups = sameSetupFiles(configs.map((c) => c.setupFilesAfterEnv))
  const withOurs: JestArgv = {
    ...argv,
    reporters: [...reporters, [REPORTER, ourOptions]],
    setupFilesAfterEnv: [...setups.filter((s) => !isOurs(s, SETUP)), SETUP],
  }
  delete (globalThis as Record<symbol, unknown>)[JEST_VERDICT]
  const { results, globalConfig: used } = await jest.runCLI(withOurs, projects)
  const verdict = (globalThis as Record<symbol, JestRunVerdict | undefined>)[JEST_VERDICT]
  if (verdict?.proofFailed) return 1
  if (results.success || verdict?.advisory) return 0
  return used.testFailureExitCode
}

// --- internal ---

/** The project's Jest (not ours): `jest`, and `jest-config` as its CLI resolves it. */
function loadJest(cwd: string): { jest: JestPackage; config: JestConfig } {
  let jestPath: string
  try {
    jestPath = createRequire(join(cwd, 'package.json')).resolve('jest')
  } catch {
    throw new FlakeproofError('Jest is not installed here; `npm i -D jest` (29 or 30)', 'E_USAGE')
  }
  const fromJest = createRequire(jestPath)
  const jest = fromJest(jestPath) as JestPackage
  const cli = createRequire(fromJest.resolve('jest-cli'))
  const config = cli(cli.resolve('jest-config')) as JestConfig
  if (typeof jest.buildArgv !== 'function' || typeof jest.runCLI !== 'function') {
    throw new FlakeproofError(`the Jest at ${dirname(jestPath)} has no buildArgv/runCLI; flakeproof jest supports Jest 29 and 30`, 'E_USAGE')
  }
  return { jest, config }
}

/**
 * One `--setupFilesAfterEnv` applies to every project: it can carry the user's files only if every
 * project lists the same ones.
 */
function sameSetupFiles(lists: readonly string[][]): string[] {
  const [first = []] = lists
  if (lists.some((list) => list.join('\n') !== first.join('\n'))) {
    throw new FlakeproofError(
      "the projects list different setupFilesAfterEnv, which one flag cannot keep; add 'flakeproof/jest/setup' to each project's setupFilesAfterEnv and ['flakeproof/jest/reporter', { repeat: 200 }] to reporters, then run jest",
      'E_USAGE',
    )
  }
  return first
}

/** The user listed flakeproof's own file already (any copy of this package): it is not added twice. */
function isOurs(path: string, ours: string): boolean {
  if (/flakeproof\/jest\/(reporter|setup)$/.test(path)) return true
  try {
    return realpathSync(path) === realpathSync(ours)
  } catch {
    return false
  }
}
