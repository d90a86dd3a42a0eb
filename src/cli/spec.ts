import type * as z from '../_zod.js'
import { type CommandOptions, defaultOf, type Flag, isRequired } from '../config/options.js'
import type { PipelineContext } from '../pipeline/context.js'
import { DEFAULT_WIDTH, table, usageLines, wrap } from '../core/text-layout.js'
import { examplesBlock } from './help.js'

/** What a command may do besides returning its exit code. */
export interface CommandIO {
  /** The command's result: one JSON object on stdout. */
  print: (result: unknown) => void
  context: PipelineContext
}

export interface CommandSpec<S extends z.ZodType = z.ZodType> extends CommandOptions<S> {
  name: string
  summary: string
  /** Overrides the usage line derived from the flags (e.g. `schema`'s positional argument). */
  usage?: string
  /** The flag that takes the words after `--`, joined back into one shell command (`repeat … -- pytest -q`). */
  rest?: string
  /** The option that receives the command's positional arguments (`merge`'s folders), if it takes any. */
  positionals?: string
  writes: string
  /** What to type in a user's project (`npx flakeproof …`), nothing that exists only in this repository. */
  example: string | readonly string[]
  /** Returns the exit code: 0 done, 1 negative verdict, 130 interrupted. Throws FlakeproofError on bad input. */
  run: (options: z.output<S>, io: CommandIO) => Promise<number>
}

/** Lets each command file keep its own option types while the table holds them all. */
export function defineCommand<S extends z.ZodType>(spec: CommandSpec<S>): CommandSpec {
  return spec as unknown as CommandSpec
}

/** `flakeproof <command> --help`: usage, flags, defaults and what is required, all from the declarations, for `width` columns. */
export function renderHelp(spec: CommandSpec, width: number = DEFAULT_WIDTH): string {
  const flags = [...spec.flags.map((f) => ({ label: flagLabel(f), text: describe(f) })), { label: '--help', text: 'show this help' }]
  return [
    ...wrap(`flakeproof ${spec.name}: ${spec.summary}`, width, 2, 0),
    '',
    ...usageLines(`Usage: flakeproof ${spec.name}`, spec.usage ?? usageOf(spec.flags), width),
    '',
    'Flags:',
    ...table(flags, width),
    '',
    ...wrap(`Writes: ${spec.writes}`, width, 2, 0),
    '',
    ...examplesBlock(spec.example, width),
    '',
  ].join('\n')
}

// --- internal ---

function flagLabel(flag: Flag): string {
  return flag.placeholder === undefined ? `--${flag.name}` : `--${flag.name} ${flag.placeholder}`
}

function describe(flag: Flag): string {
  if (flag.placeholder === undefined) return flag.description
  const fallback = defaultOf(flag)
  if (fallback !== undefined) return `${flag.description} (default ${fallback})`
  return isRequired(flag) ? `${flag.description} (required)` : flag.description
}

/** Required flags first, as they must be given; the others in brackets. */
function usageOf(flags: readonly Flag[]): string {
  const required = flags.filter(isRequired).map(flagLabel)
  const optional = flags.filter((f) => !isRequired(f)).map((f) => `[${flagLabel(f)}]`)
  return [...required, ...optional].join(' ')
}
