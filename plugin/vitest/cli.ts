import { resolve } from 'node:path'
import type { Vitest } from 'vitest/node'
import { isFlakeproofError } from '../../src/errors.js'
import { extractVitestFlags, type ResolvedVitestOptions, resolveVitestOptions } from '../../src/config/vitest-options.js'
import { checkVitestArgs } from './_vitest-args.js'
import { type RunOnce, runWithBudget } from './budget.js'
import { flakeproof, installFlakeproof, WRAPPER_OPTIONS, type WrapperOverride } from './plugin.js'
import { logLine } from '../../src/core/workflow-command.js'

/**
 * `flakeproof vitest [--flaky-*] [vitest args]`: the plugin without touching the config. Our flags
 * are taken out, Vitest parses the rest (`parseCLI` accepts unknown flags, so ours must not reach
 * it), and the plugin is injected. Returns the exit code instead of letting Vitest decide it.
 */
export async function runVitestWrapper(args: readonly string[]): Promise<number> {
  const { rest } = extractVitestFlags(args)
  const resolved = resolveVitestOptions({}, args, process.env)
  const vitestArgs = rest[0] === 'run' ? rest.slice(1) : rest
  await checkVitestArgs(vitestArgs)
  const command = `flakeproof vitest ${args.join(' ')}`.trim()
  const runOnce = (options: ResolvedVitestOptions | undefined): ReturnType<RunOnce> => runVitestOnce(options, vitestArgs, command)
  if (resolved?.budget !== undefined) {
    return runWithBudget(resolved, resolved.budget, runOnce, (line) => process.stderr.write(`${logLine(line, process.env)}\n`))
  }
  return (await runOnce(resolved)).code
}

// --- internal ---

/** One Vitest run with flakeproof's options installed: its exit code, and where the files went. */
async function runVitestOnce(resolved: ResolvedVitestOptions | undefined, vitestArgs: string[], command: string): ReturnType<RunOnce> {
  const { createVitest, parseCLI } = await import('vitest/node')
  const { filter, options: cliOptions } = parseCLI(['vitest', 'run', ...vitestArgs])
  // Any flakeproof() already in the user's config resolves to these same options.
  const override: WrapperOverride = { options: resolved, command }
  ;(globalThis as Record<symbol, unknown>)[WRAPPER_OPTIONS] = override
  const vitest = await createVitest('test', { ...cliOptions, watch: false, run: true }, { plugins: [flakeproof()] })
  const outDir = resolve(vitest.config.root, resolved?.outDir ?? '.flakeproof')
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
  const code = typeof process.exitCode === 'number' ? process.exitCode : Number(process.exitCode ?? 0)
  // Time in tests and their hooks, every module summed: what each repetition adds, without Vitest's start.
  const testTimeMs = vitest.state.getTestModules().reduce((sum, m) => sum + m.diagnostic().duration, 0)
  return { code, outDir, testTimeMs }
}

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
