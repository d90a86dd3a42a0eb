import { resolveRunnerOptions } from '../config/runners.js'
import { extractVitestFlags } from '../config/vitest-options.js'
import { runWithBudget } from './budget.js'
import type { RunnerAdapter, WrapperEnd } from './runner-adapter.js'

/**
 * `flakeproof <runner> [--flaky-*] [runner args]`, for every adapter: flakeproof's flags are taken
 * out and resolved (a flag the adapter lacks is refused before any test runs), the adapter checks
 * and keeps the rest for its runner, and runs once — or, with `--flaky-budget`, a calibration run
 * and then the measurement. Returns the exit code, and whether the runner ends the process.
 */
export async function runWrapper(adapter: RunnerAdapter, args: readonly string[]): Promise<WrapperEnd> {
  const resolved = resolveRunnerOptions(adapter.runner, {}, args, process.env, adapter.version?.())
  const { rest } = extractVitestFlags(args)
  const runOnce = await adapter.prepare(rest, `flakeproof ${adapter.runner.name} ${args.join(' ')}`.trim())
  if (resolved?.budget !== undefined) return runWithBudget(resolved, resolved.budget, runOnce, (line) => process.stderr.write(`${line}\n`))
  const { code, ending } = await runOnce(resolved)
  return { code, ending }
}
