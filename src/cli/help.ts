import { didYouMean } from '../core/did-you-mean.js'
import { DEFAULT_WIDTH, shellLines, table, terminalWidth, wrap } from '../core/text-layout.js'

/**
 * Help and usage errors the usual ways: `flakeproof --help`, "did you mean" for a mistyped command
 * or flag, and help laid out for the terminal. Kept apart from main.ts (which only routes) and from
 * the flag declarations (which only declare): every name here comes from those declarations.
 */

/** The width help is laid out for: stdout's, 80 when it is not a terminal (or `COLUMNS`). */
export function helpWidth(): number {
  return terminalWidth(process.stdout, process.env)
}

/** `Example:` (or `Examples:`) and each command as it pastes, broken with ` \` where it is wide. */
export function examplesBlock(example: string | readonly string[], width: number): string[] {
  const examples = typeof example === 'string' ? [example] : example
  return [examples.length === 1 ? 'Example:' : 'Examples:', ...examples.flatMap((e) => shellLines(e, width))]
}

/** What the overview needs of a command: its name and one line. */
export interface Listed {
  name: string
  summary: string
}

/** What the overview needs of a runner's command: its name, one line and its first example. */
export interface ListedRunner {
  runner: { name: string }
  summary: string
  help: { example: string | readonly string[] }
}

/** `flakeproof --help`: the runners first (where most users start), then every command, then the exit codes. */
export function renderOverview(commands: readonly Listed[], runners: readonly ListedRunner[], width: number = DEFAULT_WIDTH): string {
  const firstExample = (r: ListedRunner): string => (typeof r.help.example === 'string' ? r.help.example : (r.help.example[0] ?? ''))
  return [
    ...wrap('flakeproof: turn "it passed when I ran it again" into numbers.', width),
    '',
    'Usage: flakeproof <command> [flags]',
    '       flakeproof help <command>, the same as flakeproof <command> --help',
    '',
    ...wrap('Test runners (flakeproof <runner> [--flaky-* flags] [runner args]):', width, 2, 0),
    ...table(
      runners.map((r) => ({ label: r.runner.name, text: r.summary })),
      width,
    ),
    '',
    'Commands for any command, runner or report:',
    ...table(
      commands.map((c) => ({ label: c.name, text: c.summary })),
      width,
    ),
    '',
    'Start here, in your project:',
    ...runners.flatMap((r) => shellLines(firstExample(r), width)),
    '',
    ...wrap(
      'Exit codes: 0 done, 1 negative verdict (a proof failed), 2 bad usage or input, 3 results could not be written (or a trial could not start), 130 interrupted (Ctrl-C), 143 SIGTERM, 129 SIGHUP.',
      width,
    ),
    '',
  ].join('\n')
}

/** `unknown command \`mesure\`; did you mean \`measure\`?`, or every command when none is close. */
export function unknownCommand(name: string, names: readonly string[]): string {
  const quote = (n: string): string => `\`${n}\``
  const hint = didYouMean(name, names, quote)
  return hint !== '' ? `unknown command ${quote(name)}${hint}` : `unknown command ${quote(name)}; commands: ${names.join(', ')}`
}

/** `unknown flag --trails; did you mean --trials?` for a command's declared flags. */
export function unknownFlag(flag: string, names: readonly string[]): string {
  return `unknown flag ${flag}${didYouMean(flag, [...names.map((n) => `--${n}`), '--help'])}`
}
