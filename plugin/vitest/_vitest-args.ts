import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { FlakeproofError } from '../../src/session/adapter.js'

interface CacCommand {
  checkUnknownOptions(): void
  checkOptionValue(): void
}
interface Cac {
  parse(argv: string[], options: { run: boolean }): unknown
  matchedCommand?: CacCommand
}

/**
 * Lets Vitest's own parser judge the arguments the wrapper passes on, as `vitest run` would: an
 * unknown flag is refused before any test runs, instead of being accepted by `parseCLI` (which never
 * checks) and silently swallowing the file filter after it. Vitest's bin is one line,
 * `createCLI().parse()`, importing `createCLI` from a hashed chunk (3.2 to 5.x alike); if a future
 * layout hides it, the check is skipped rather than guessed.
 */
export async function checkVitestArgs(args: readonly string[]): Promise<void> {
  const createCli = await loadCreateCli()
  if (!createCli) return
  const cli = createCli()
  try {
    cli.parse(['node', 'vitest', 'run', ...args], { run: false })
    cli.matchedCommand?.checkUnknownOptions()
    cli.matchedCommand?.checkOptionValue()
  } catch (error) {
    throw new FlakeproofError(`${inOurWords((error as Error).message, args)} (as \`vitest run\` says); see \`npx vitest run --help\``, 'E_USAGE')
  }
}

// --- internal ---

async function loadCreateCli(): Promise<(() => Cac) | undefined> {
  try {
    const bin = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'dist/cli.js')
    const match = /import\s*\{\s*(\w+)\s+as\s+createCLI\s*\}\s*from\s*['"](\.\/chunks\/[^'"]+)['"]/.exec(readFileSync(bin, 'utf8'))
    if (!match) return undefined
    const [, exported, chunk] = match as unknown as [string, string, string]
    const module = (await import(pathToFileURL(join(dirname(bin), chunk)).href)) as Record<string, unknown>
    const createCli = module[exported]
    return typeof createCli === 'function' ? (createCli as () => Cac) : undefined
  } catch {
    return undefined
  }
}

/** cac names an unknown flag camel-cased (`--bogusFlag`): name it as the user typed it. */
function inOurWords(message: string, args: readonly string[]): string {
  return message.replace(/`--([\w.]+)`/, (whole, camel: string) => {
    const typed = args.find((arg) => arg.startsWith('--') && arg.slice(2).split('=')[0]?.replace(/-(\w)/g, (_, c: string) => c.toUpperCase()) === camel)
    return typed ? `\`${typed.split('=')[0]}\`` : whole
  })
}
