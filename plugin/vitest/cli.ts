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
  // Projects from their own config files never see a root plugin: install on the instance too.
  if (resolved) installFlakeproof(vitest, resolved, override.command, 'runtime')
  try {
    await vitest.start(filter)
  } finally {
    await vitest.close()
  }
  return typeof process.exitCode === 'number' ? process.exitCode : Number(process.exitCode ?? 0)
}
