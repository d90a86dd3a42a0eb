import { FlakeproofError } from '../errors.js'
import { type FlakeproofVitestOptions, type ResolvedVitestOptions, renderVitestFlags, resolveVitestOptions, VITEST_FLAGS, VitestOptionsSchema } from './vitest-options.js'

/**
 * The Jest adapter's options: the Vitest adapter's, less `seed` (Jest has its own `--randomize
 * --seed`, which the reporter records). Same defaults, same rules, same meaning.
 */
export const JestOptionsSchema = VitestOptionsSchema.omit({ seed: true })
export type FlakeproofJestOptions = Omit<FlakeproofVitestOptions, 'seed'>
export type ResolvedJestOptions = Omit<ResolvedVitestOptions, 'seed'>

/** The `--flaky-*` flags of `flakeproof jest`: Vitest's entries, whose meaning is the same for Jest. */
export const JEST_FLAGS = (({ '--flaky-seed': _seed, ...same }) => same)(VITEST_FLAGS)

/** The `--flaky-*` lines of `flakeproof jest --help`: Vitest's, for the flags Jest shares. */
export function renderJestFlags(): string[] {
  return renderVitestFlags().filter((line) => line.trimStart().split(' ')[0] as string in JEST_FLAGS)
}

/**
 * Resolves the Jest adapter's options from the reporter's options, FLAKEPROOF_REPEAT and our flags
 * among `args`, later winning; undefined when nothing asks for a repetition or a proof. A `--flaky-*`
 * flag Jest does not take (`--flaky-seed`: use Jest's `--seed`) is refused here, before any test runs.
 */
export function resolveJestOptions(
  configured: FlakeproofJestOptions,
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): ResolvedJestOptions | undefined {
  for (const arg of args) {
    const name = arg.split('=')[0] as string
    if (!name.startsWith('--flaky-') || name in JEST_FLAGS) continue
    const hint = name === '--flaky-seed' ? ' (for Jest, pass its own `--randomize --seed <n>`)' : ''
    throw new FlakeproofError(`unknown flag ${name}${hint}; flakeproof's Jest flags are ${Object.keys(JEST_FLAGS).join(', ')}`, 'E_USAGE')
  }
  if ('seed' in configured) {
    throw new FlakeproofError('unknown option `seed` in the flakeproof/jest/reporter options; set Jest\'s own `randomize: true, seed: <n>` instead', 'E_USAGE')
  }
  const resolved = resolveVitestOptions(configured, args, env)
  if (!resolved) return undefined
  const { seed: _seed, ...jest } = resolved
  return jest
}
