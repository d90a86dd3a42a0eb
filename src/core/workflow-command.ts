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
