import type { z } from 'zod'
import type { PipelineContext } from '../pipeline/context.js'

/** One flag as the help text and the argv parser see it. */
export interface FlagSpec {
  name: string
  /** Placeholder shown in help, e.g. `<n>`; omitted for boolean flags. */
  value?: string
  description: string
  /**
   * Where the command writes: a file (its folder) or a folder. Before the command runs, the CLI
   * refuses a path that is not a regular file and locks the folder for the run.
   */
  output?: 'file' | 'folder'
}

/** What a command may do besides returning its exit code. */
export interface CommandIO {
  /** The command's result: one JSON object on stdout. */
  print: (result: unknown) => void
  context: PipelineContext
}

export interface CommandSpec<S extends z.ZodType = z.ZodType> {
  name: string
  summary: string
  usage: string
  flags: FlagSpec[]
  writes: string
  example: string
  schema: S
  /** Returns the exit code: 0 done, 1 negative verdict, 130 interrupted. Throws FlakeproofError on bad input. */
  run: (options: z.output<S>, io: CommandIO) => Promise<number>
}

/** Lets each command file keep its own option types while the table holds them all. */
export function defineCommand<S extends z.ZodType>(spec: CommandSpec<S>): CommandSpec {
  return spec as unknown as CommandSpec
}

/** `flakeproof <command> --help` */
export function renderHelp(spec: CommandSpec): string {
  const width = Math.max(...spec.flags.map((f) => flagLabel(f).length))
  const flags = spec.flags.map((f) => `  ${flagLabel(f).padEnd(width)}  ${f.description}`)
  return [
    `flakeproof ${spec.name}: ${spec.summary}`,
    '',
    `Usage: flakeproof ${spec.name} ${spec.usage}`,
    '',
    'Flags:',
    ...flags,
    `  ${'--help'.padEnd(width)}  show this help`,
    '',
    `Writes: ${spec.writes}`,
    '',
    'Example:',
    `  ${spec.example}`,
    '',
  ].join('\n')
}

// --- internal ---

function flagLabel(flag: FlagSpec): string {
  return flag.value === undefined ? `--${flag.name}` : `--${flag.name} ${flag.value}`
}
