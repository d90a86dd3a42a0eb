import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Vitest } from 'vitest/node'
import { readJsonFile } from '../../src/artifacts/read.js'
import { PolicyFileSchema, RunsNeededFileSchema } from '../../src/artifacts/schemas.js'
import { type FlakeproofVitestOptions, type ResolvedVitestOptions, resolveVitestOptions } from '../../src/config/vitest-options.js'
import { FlakeproofError } from '../../src/errors.js'
import { PROVIDE_KEY, type RunnerOptions } from './_protocol.js'
import FlakeproofReporter from './reporter.js'

export type { FlakeproofVitestOptions } from '../../src/config/vitest-options.js'
export { default as FlakeproofReporter } from './reporter.js'

const RUNNER = fileURLToPath(new URL('./runner.js', import.meta.url))

/** Set by `flakeproof vitest`, whose flags win over any plugin instance in the user's config. */
export const WRAPPER_OPTIONS = Symbol.for('flakeproof.vitest.options')

/** The slice of a Vite plugin this needs; typed loosely so any Vite that Vitest 3.2–5 uses accepts it. */
export interface FlakeproofPlugin {
  name: string
  config: () => { test: { runner: string } } | undefined
  configureVitest: (context: { vitest: Vitest }) => void
}

/**
 * The Vitest plugin: `plugins: [flakeproof()]`. Inactive (nothing injected, nothing written) unless
 * a repeat count or a proof is asked for, by these options, by `vitest run -- --flaky-repeat 200`
 * or by FLAKEPROOF_REPEAT=200. When active it sets the recording runner on every project and adds
 * the reporter next to the user's own reporters.
 */
export function flakeproof(options: FlakeproofVitestOptions = {}): FlakeproofPlugin {
  let resolved: ResolvedVitestOptions | undefined
  return {
    name: 'flakeproof',
    config() {
      const override = (globalThis as Record<symbol, ResolvedVitestOptions | undefined>)[WRAPPER_OPTIONS]
      resolved = override ?? resolveVitestOptions(options, process.argv, process.env)
      return resolved ? { test: { runner: RUNNER } } : undefined
    },
    configureVitest({ vitest }) {
      if (!resolved || vitest.config.reporters.some((r) => r instanceof FlakeproofReporter)) return
      const root = vitest.config.root
      const runnerOptions = toRunnerOptions(resolved, resolve(root, resolved.outDir))
      for (const project of vitest.projects) {
        project.config.runner = RUNNER
        project.provide(PROVIDE_KEY as never, runnerOptions as never)
      }
      const reporters = vitest.config.reporters.filter((r) => !isReporterName(r))
      reporters.push(
        new FlakeproofReporter({ ...resolved, runnerMode: runnerOptions.mode, proofRuns: runnerOptions.proofRuns, command: describeCommand() }),
      )
      vitest.config.reporters.splice(0, vitest.config.reporters.length, ...reporters)
    },
  }
}

export default flakeproof

// --- internal ---

/** A `'flakeproof/reporter'` entry listed by hand would write the same files twice. */
function isReporterName(entry: unknown): boolean {
  const name = Array.isArray(entry) ? entry[0] : entry
  return typeof name === 'string' && /^flakeproof\/(vitest\/)?reporter$/.test(name)
}

function describeCommand(): string {
  const args = process.argv.slice(2)
  return `vitest ${args.join(' ')}`.trim()
}

function toRunnerOptions(options: ResolvedVitestOptions, outDir: string): RunnerOptions {
  const base = { gapMs: options.gapMs, failOnFlaky: options.failOnFlaky }
  if (!options.proof) {
    return { ...base, mode: 'measure', repeat: options.repeat ?? 1, slowRepeat: options.observe ? options.slowRepeat : 0, proofRuns: {} }
  }
  return { ...base, mode: 'proof', repeat: 1, slowRepeat: 0, proofRuns: readProofRuns(outDir) }
}

/** Each test that was flaky in the last measurement, and the green runs its fix must pass. */
function readProofRuns(outDir: string): Record<string, number> {
  const policyPath = join(outDir, 'policy.json')
  const planPath = join(outDir, 'runs_needed.json')
  const hint = 'Measure first: `vitest run -- --flaky-repeat 200`.'
  if (existsSync(policyPath)) {
    const policy = readJsonFile(policyPath, PolicyFileSchema, '--flaky-proof', hint)
    return pick(policy.tests, (t) => t.green_runs_required)
  }
  if (existsSync(planPath)) {
    const plan = readJsonFile(planPath, RunsNeededFileSchema, '--flaky-proof', hint)
    return pick(plan.tests, (t) => t.runs)
  }
  throw new FlakeproofError(`--flaky-proof: no policy.json or runs_needed.json in ${outDir}. ${hint}`, 'E_INPUT')
}

function pick<T extends { verdict: string }>(tests: Record<string, T> | undefined, runs: (t: T) => number): Record<string, number> {
  return Object.fromEntries(Object.entries(tests ?? {}).filter(([, t]) => t.verdict === 'flaky').map(([id, t]) => [id, runs(t)]))
}
