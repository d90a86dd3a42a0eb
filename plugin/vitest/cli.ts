import { resolve } from 'node:path'
import type { Vitest } from 'vitest/node'
import { FlakeproofError, flakeproofErrorIn, type ProcessEnding, type ResolvedVitestOptions, type RunnerAdapter, RUNNERS, type RunOutcome, shownFolder, startFailure } from '../../src/session/adapter.js'
import { checkVitestArgs } from './_vitest-args.js'
import { packagesVitestNeeds, setVitestEnv, vitestRunArgs } from './_vitest-start.js'
import { flakeproof, installFlakeproof, WRAPPER_OPTIONS, type WrapperOverride } from './plugin.js'

/**
 * `flakeproof vitest [--flaky-*] [vitest args]`: the plugin without touching the config. The session
 * (src/session/wrapper.ts) takes our flags out; Vitest parses the rest (`parseCLI` accepts unknown
 * flags, so ours must not reach it), checked first by Vitest's own parser, and the plugin is injected.
 */
export const vitestAdapter: RunnerAdapter = {
  runner: RUNNERS.vitest,
  async prepare(args, command) {
    const vitestArgs = args[0] === 'run' ? args.slice(1) : [...args]
    await checkVitestArgs(vitestArgs)
    // Refused before any test runs: a mode that is not one run of the tests.
    vitestRunArgs((await import('vitest/node')).parseCLI, vitestArgs)
    return (options) => runVitestOnce(options, vitestArgs, command)
  },
}

// --- internal ---

/** One Vitest run with flakeproof's options installed: its exit code, and where the files went. */
async function runVitestOnce(resolved: ResolvedVitestOptions | undefined, vitestArgs: string[], command: string): Promise<RunOutcome> {
  const { createVitest, parseCLI } = await import('vitest/node')
  // Parsed again for each run (a budget's two): Vitest may change the options it is given.
  const { filter, options: cliOptions } = vitestRunArgs(parseCLI, vitestArgs)
  // Any flakeproof() already in the user's config resolves to these same options.
  const override: WrapperOverride = { options: resolved, command }
  ;(globalThis as Record<symbol, unknown>)[WRAPPER_OPTIONS] = override
  setVitestEnv(process.env)
  const vitest = await createVitest('test', cliOptions, { plugins: [flakeproof()] }).catch((error: unknown) => {
    // A config Vitest refuses (`vitest run` prints "Startup Error" and a stack): one line, exit 2.
    if (flakeproofErrorIn(error)) throw error
    throw new FlakeproofError(`Vitest did not start: ${startFailure(error)} (\`npx vitest run\` prints Vitest's own report)`, 'E_USAGE', { cause: error })
  })
  const outDir = resolve(vitest.config.root, resolved?.outDir ?? '.flakeproof')
  const ending = closeTimeout(vitest.config.teardownTimeout)
  const needs = packagesVitestNeeds(vitest.config)
  if (needs.environment !== undefined) await vitest.packageInstaller.ensureInstalled(needs.environment, vitest.config.root)
  if (needs.coverage !== undefined && !(await vitest.packageInstaller.ensureInstalled(needs.coverage, vitest.config.root, vitest.version))) {
    // Vitest said which package is missing; that no test ran, and that nothing was written, is ours to say.
    vitest.logger.error(`[flakeproof] no test ran: Vitest stopped before the first (its coverage provider ${needs.coverage} is not installed); the files in ${shownFolder(outDir)} were left as they were`)
    await vitest.close()
    return { code: 1, outDir, testTimeMs: 0, ending }
  }
  try {
    // Projects from their own config files never see a root plugin: install on the instance too.
    if (resolved) installFlakeproof(vitest, resolved, override.command, 'runtime')
    await vitest.start(filter)
  } catch (error) {
    // Our own error (out dir, lock) is main.ts's to print as one line; the rest are Vitest's.
    if (flakeproofErrorIn(error)) throw error
    reportAsVitestDoes(vitest, error)
  } finally {
    await vitest.close()
  }
  const code = typeof process.exitCode === 'number' ? process.exitCode : Number(process.exitCode ?? 0)
  // Time in tests and their hooks, every module summed: what each repetition adds, without Vitest's start.
  const testTimeMs = vitest.state.getTestModules().reduce((sum, m) => sum + m.diagnostic().duration, 0)
  return { code, outDir, testTimeMs, ending }
}

/**
 * What `vitest run` does when something keeps its process alive after the run (a global setup's
 * server, say): it warns and exits once its `teardownTimeout` has passed (Vitest's `exit`, which
 * closes the instance and sets the timer). Here the wait starts when flakeproof is done (src/cli),
 * not at Vitest's `close`: a budget runs Vitest twice in one process.
 */
function closeTimeout(afterMs: number): ProcessEnding {
  return {
    afterMs,
    exits: true,
    warning: `[flakeproof] the process was still running ${afterMs} ms after the run (Vitest's teardownTimeout): something a test or a global setup started keeps it open; it ends now, as \`vitest run\` ends it (Vitest's "hanging-process" reporter names what holds it)`,
  }
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
