import { existsSync, statSync } from 'node:fs'
import { dirname, resolve } from 'node:path'

/**
 * The folder Playwright will take as its config's (where flakeproof's output folder is relative
 * to), found as Playwright finds it (its `resolveConfigLocation`): `-c`/`--config` resolved from
 * `cwd`, or `cwd`; a folder is its own, whether or not a playwright.config.* is in it; a file is its
 * folder. Known before Playwright starts, so an output folder it may not write is refused before
 * any test runs (a run stopped once begun can hang Playwright: a worker still starting never
 * stops). Undefined when the path does not exist, which Playwright reports in its own words.
 */
export function playwrightConfigDir(cwd: string, args: readonly string[]): string | undefined {
  const given = configArg(args)
  const location = given === undefined ? cwd : resolve(cwd, given)
  if (!existsSync(location)) return undefined
  return statSync(location).isDirectory() ? location : dirname(location)
}

// --- internal ---

/**
 * Playwright Test's options that take a value (`playwright test --help`, 1.65.1), other than the
 * config: their value is never read as one (`-g -cart` greps for "-cart").
 */
const TAKES_VALUE = new Set(['--add-reporter', '--browser', '--global-timeout', '-g', '--grep', '-G', '--grep-invert', '--last-failed-file', '--max-failures', '--output', '--project', '--repeat-each', '--reporter', '--retries', '--run-agents', '--shard', '--test-list', '--test-list-invert', '--timeout', '--trace', '--tsconfig', '--ui-host', '--ui-port', '--update-source-method', '-j', '--workers'])

/** The value of Playwright's `-c <file>`, `--config <file>`, `--config=<file>` or `-c<file>`; the last one given wins, as in its CLI. */
function configArg(args: readonly string[]): string | undefined {
  let value: string | undefined
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string
    if (arg === '--') break
    if (TAKES_VALUE.has(arg)) i++
    else if (arg === '-c' || arg === '--config') value = args[++i]
    else if (arg.startsWith('--config=')) value = arg.slice('--config='.length)
    else if (arg.startsWith('-c')) value = arg.slice(2)
  }
  return value
}
