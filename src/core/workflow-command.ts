/**
 * GitHub Actions workflow commands (`::warning file=…,line=…::message`), escaped as the runner
 * unescapes them (actions/toolkit `core/src/command.ts`): in the message `%`, `\r` and `\n`; in a
 * property also `:` and `,`, which would otherwise end the property. An unescaped newline would end
 * the command and print the rest of the message as a plain log line.
 */

export type AnnotationLevel = 'notice' | 'warning' | 'error'

export interface Annotation {
  level: AnnotationLevel
  message: string
  title?: string
  /** Relative to the repository root (GITHUB_WORKSPACE), with `/`. */
  file?: string
  line?: number
}

/** The message part of a workflow command. */
export function escapeData(text: string): string {
  return text.replaceAll('%', '%25').replaceAll('\r', '%0D').replaceAll('\n', '%0A')
}

/** A property value of a workflow command. */
export function escapeProperty(text: string): string {
  return escapeData(text).replaceAll(':', '%3A').replaceAll(',', '%2C')
}

/** One annotation as the line the runner reads, properties in GitHub's documented order. */
export function formatAnnotation({ level, message, title, file, line }: Annotation): string {
  const properties = [
    ...(file === undefined ? [] : [`file=${escapeProperty(file)}`]),
    ...(line === undefined ? [] : [`line=${line}`]),
    ...(title === undefined ? [] : [`title=${escapeProperty(title)}`]),
  ]
  return `::${level}${properties.length > 0 ? ` ${properties.join(',')}` : ''}::${escapeData(message)}`
}

/**
 * A line of plain output for a GitHub Actions log, whatever it quotes (a test name, a command, a
 * quarantine's reason, a file's text): the runner reads no workflow command in it. The runner splits
 * its input at CR and LF, takes a line that starts with `::` after white space for a command (v2),
 * and one holding `##[` anywhere (v1; actions/runner ActionCommand.cs). So CR and LF become `%0D` and
 * `%0A`, as in an annotation's message, and one call stays one line; a leading `::` becomes
 * `%3A%3A`; `##[` becomes `##%5B`. Everything else is left as it reads (no `%25`: rates keep their
 * `%`). Annotations are made by `formatAnnotation`, not through here.
 */
export function escapeLogLine(text: string): string {
  return text
    .replaceAll('\r', '%0D')
    .replaceAll('\n', '%0A')
    .replace(/^([\s\u0085]*)::/, '$1%3A%3A')
    .replaceAll('##[', '##%5B')
}

/**
 * The same rule for JSON printed to a GitHub Actions log: JSON already writes CR and LF inside
 * strings as `\r` and `\n`, and no line of it starts with `::`, so only `##[` is left, written
 * `##\u005b`: the same JSON value, which a reader of the output still parses unchanged.
 */
export function escapeLogJson(json: string): string {
  return json.replaceAll('##[', '##\\u005b')
}

/** Whether this process runs as a GitHub Actions step (the runner sets GITHUB_ACTIONS=true). */
export function inGithubActions(env: Readonly<Record<string, string | undefined>>): boolean {
  return env.GITHUB_ACTIONS === 'true'
}

/**
 * A line of flakeproof's own output as it may be printed in this environment: escaped under GitHub
 * Actions (`escapeLogLine`), unchanged elsewhere. Every printer (the CLI, the Vitest and Jest
 * reporters) passes its lines through here; only annotations (`formatAnnotation`) are printed as made.
 */
export function logLine(line: string, env: Readonly<Record<string, string | undefined>>): string {
  return inGithubActions(env) ? escapeLogLine(line) : line
}

/** A JSON result for stdout, escaped as `logLine` escapes text (`escapeLogJson`: the same JSON value). */
export function logJson(json: string, env: Readonly<Record<string, string | undefined>>): string {
  return inGithubActions(env) ? escapeLogJson(json) : json
}
