import type { Vitest } from 'vitest/node'
import { isFlakeproofError } from '../../src/errors.js'
import { extractVitestFlags, resolveVitestOptions } from '../../src/config/vitest-options.js'
import { checkVitestArgs } from './_vitest-args.js'
import { flakeproof, installFlakeproof, WRAPPER_OPTIONS, type WrapperOverride } from './plugin.js'

/**
 * `flakeproof vitest [--flaky-*] [vitest args]`: the plugin without touching the config. Our flags
 * are taken out, Vitest parses the rest (`parseCLI` accepts unknown flags, so ours must not reach
 * it), and the plugin is injected. Returns the exit code instead of letting Vitest decide it.
 */
export async function runVitestWrapper(args: readonly string[]): Promise<number> {
  const { rest } = extractVitestFlags(args)
  const resolved = resolveVitestOptions({}, args, process.env)
  const { createVitest, parseCLI } = await import('vitest/node')
  const vitestArgs = rest[0] === 'run' ? rest.slice(1) : rest
  await checkVitestArgs(vitestArgs)
  const { filter, options: cliOptions } = parseCLI(['vitest', 'run', ...vitestArgs])
  // Any flakeproof() already in the user's config resolves to these same options.
  const override: WrapperOverride = { options: resolved, command: `flakeproof vitest ${args.join(' ')}`.trim() }
  ;(globalThis as Record<symbol, unknown>)[WRAPPER_OPTIONS] = override
  const vitest = await createVitest('test', { ...cliOptions, watch: false, run: true }, { plugins: [flakeproof()] })
  try {
    // Projects from their own config files never see a root plugin: install on the instance too.
    if (resolved) installFlakeproof(vitest, resolved, override.command, 'runtime')
    await vitest.start(filter)
  } catch (error) {
    // Our own error (out dir, lock) is main.ts's to print as one line; the rest are Vitest's.
    if (isFlakeproofError((error as Error | undefined)?.cause)) throw error
    reportAsVitestDoes(vitest, error)
  } finally {
    await vitest.close()
  }
  return typeof process.exitCode === 'number' ? process.exitCode : Number(process.exitCode ?? 0)
}

// --- internal ---

/**
 * What `vitest run` does with an error from `start` (its `startVitest`): "no test files" was already
 * printed in Vitest's words; the others are printed once, never as a stack through flakeproof.
 */
function reportAsVitestDoes(vitest: Vitest, error: unknown): void {
  process.exitCode = 1
  if ((error as { code?: unknown }).code === 'VITEST_FILES_NOT_FOUND') return
  if ((error as { code?: unknown }).code === 'VITEST_GIT_NOT_FOUND') vitest.logger.error((error as Error).message)
  else vitest.logger.printError(error, { fullStack: true, type: 'Unhandled Error' })
}
