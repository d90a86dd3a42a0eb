import { FlakeproofError } from '../errors.js'
import { type FlakeproofVitestOptions, type ResolvedVitestOptions, renderVitestFlags, resolveVitestOptions, VITEST_FLAGS, VitestOptionsSchema } from './vitest-options.js'

/**
 * What the Jest adapter takes of the Vitest adapter's options: the measuring and proving ones, with
 * the same defaults, rules and meaning. Not `seed` (Jest has its own `--randomize --seed`, which the
 * reporter records), nor what only the Vitest path does yet (rounds, the committed policy's
 * enforcement and budget, JUnit, history): a flag that would do nothing is refused, not ignored.
 */
const JEST_KEYS = ['repeat', 'gapMs', 'observe', 'slowRepeat', 'confidence', 'outDir', 'outAnywhere', 'failOnFlaky', 'proof'] as const
type JestKey = (typeof JEST_KEYS)[number]
const isJestKey = (key: string): key is JestKey => (JEST_KEYS as readonly string[]).includes(key)

export const JestOptionsSchema = VitestOptionsSchema.pick(Object.fromEntries(JEST_KEYS.map((key) => [key, true])) as { [K in JestKey]: true })
export type FlakeproofJestOptions = Pick<FlakeproofVitestOptions, JestKey>
export type ResolvedJestOptions = Pick<ResolvedVitestOptions, JestKey>

/** The `--flaky-*` flags of `flakeproof jest`: Vitest's entries for the options Jest shares. */
export const JEST_FLAGS = Object.fromEntries(Object.entries(VITEST_FLAGS).filter(([, flag]) => isJestKey(flag.key))) as Partial<typeof VITEST_FLAGS>

/** The `--flaky-*` lines of `flakeproof jest --help`: Vitest's, for the flags Jest shares. */
export function renderJestFlags(): string[] {
  return renderVitestFlags().filter((line) => line.trimStart().split(' ')[0] as string in JEST_FLAGS)
}

/**
 * Resolves the Jest adapter's options from the reporter's options, FLAKEPROOF_REPEAT and our flags
 * among `args`, later winning; undefined when nothing asks for a repetition or a proof. A `--flaky-*`
 * flag or an option Jest does not take is refused here, before any test runs.
 */
export function resolveJestOptions(
  configured: FlakeproofJestOptions,
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): ResolvedJestOptions | undefined {
  for (const arg of args) {
    const name = arg.split('=')[0] as string
    if (!name.startsWith('--flaky-') || name in JEST_FLAGS) continue
    const hint = name === '--flaky-seed' ? ' (for Jest, pass its own `--randomize --seed <n>`)' : name in VITEST_FLAGS ? ' (Vitest only for now)' : ''
    throw new FlakeproofError(`unknown flag ${name}${hint}; flakeproof's Jest flags are ${Object.keys(JEST_FLAGS).join(', ')}`, 'E_USAGE')
  }
  for (const key of Object.keys(configured)) {
    if (isJestKey(key)) continue
    const hint = key === 'seed' ? "set Jest's own `randomize: true, seed: <n>` instead" : `the Jest reporter takes ${JEST_KEYS.join(', ')}`
    throw new FlakeproofError(`unknown option \`${key}\` in the flakeproof/jest/reporter options; ${hint}`, 'E_USAGE')
  }
  const resolved = resolveVitestOptions(configured, args, env)
  if (!resolved) return undefined
  return Object.fromEntries(JEST_KEYS.filter((key) => key in resolved).map((key) => [key, resolved[key]])) as ResolvedJestOptions
}
