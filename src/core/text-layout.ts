/**
 * Text laid out for a terminal of a given width: help, usage lines, examples. Pure: the width comes
 * from the caller (`terminalWidth`), so the same layout is tested at 80 and 120 columns.
 */

/** The narrowest layout offered: below it, a two-column table has no room for its second column. */
export const MIN_WIDTH = 40

/** The width when the output is not a terminal (a pipe, a file, a CI log). */
export const DEFAULT_WIDTH = 80

/**
 * The columns to lay text out in: an explicit `COLUMNS` (what a user sets to ask for a width, and
 * what tests set), else the terminal's own width, else 80 for a pipe or a file; never below 40.
 */
export function terminalWidth(stream: { isTTY?: boolean; columns?: number }, env: Readonly<Record<string, string | undefined>>): number {
  const asked = /^\d+$/.test(env.COLUMNS ?? '') ? Number(env.COLUMNS) : undefined
  const own = stream.isTTY === true && typeof stream.columns === 'number' && stream.columns > 0 ? stream.columns : undefined
  return Math.max(MIN_WIDTH, asked ?? own ?? DEFAULT_WIDTH)
}

/**
 * `text` in lines of at most `width` characters, broken at spaces: the first line starts after
 * `first` characters already on it (a label), the others are indented by `indent`. A word longer
 * than a whole line is cut where the line ends, so no line is ever wider than `width`.
 */
export function wrap(text: string, width: number, indent = 0, first = indent): string[] {
  const lines: string[] = []
  let line = ''
  let room = width - first
  const flush = (): void => {
    lines.push(line)
    line = ''
    room = width - indent
  }
  for (let word of text.split(/ +/).filter((w) => w !== '')) {
    if (line !== '' && line.length + 1 + word.length > room) flush()
    while (word.length > room) {
      if (line !== '') flush()
      line = word.slice(0, room)
      word = word.slice(room)
      flush()
    }
    line = line === '' ? word : `${line} ${word}`
  }
  if (line !== '' || lines.length === 0) lines.push(line)
  return lines.map((l, i) => (i === 0 ? l : `${' '.repeat(indent)}${l}`))
}

/** One row of a two-column table: a label (a flag, a command) and what it does. */
export interface Row {
  label: string
  text: string
}

/**
 * Rows as `  label  text`, the text wrapped in its own column. The label column is as wide as the
 * widest label (or `labelWidth`) up to `maxLabel` and half the width; a longer label takes its line
 * alone and its text starts below it.
 */
export function table(rows: readonly Row[], width: number, options: { indent?: number; gap?: number; maxLabel?: number; labelWidth?: number } = {}): string[] {
  const indent = options.indent ?? 2
  const gap = options.gap ?? 2
  const limit = Math.min(options.maxLabel ?? 28, Math.floor((width - indent - gap) / 2))
  // `labelWidth`: the column of several tables read as one (help's groups).
  const column = Math.min(limit, Math.max(options.labelWidth ?? 0, ...rows.map((r) => r.label.length).filter((n) => n <= limit)))
  const textAt = indent + column + gap
  return rows.flatMap(({ label, text }) => {
    const head = `${' '.repeat(indent)}${label}`
    if (label.length > column) return [head, ...wrap(text, width, textAt).map((l) => ' '.repeat(textAt) + l.trimStart())]
    const [firstLine = '', ...rest] = wrap(text, width, textAt, textAt)
    return [`${head.padEnd(textAt)}${firstLine}`, ...rest]
  })
}

/**
 * A shell command in lines of at most `width`, continued with ` \` where it is broken (between
 * words, never inside quotes, never between a flag and its value), so it still runs when pasted
 * whole. A line starts with `indent` spaces, continuation lines with two more.
 */
export function shellLines(command: string, width: number, indent = 2): string[] {
  const words = withValues(shellSplit(command))
  const lines: string[] = []
  let line = ''
  for (const word of words) {
    const lead = ' '.repeat(lines.length === 0 ? indent : indent + 2)
    if (line !== '' && lead.length + line.length + 1 + word.length + 2 > width) {
      lines.push(`${lead}${line} \\`)
      line = word
    } else {
      line = line === '' ? word : `${line} ${word}`
    }
  }
  lines.push(`${' '.repeat(lines.length === 0 ? indent : indent + 2)}${line}`)
  return lines
}

/**
 * A usage line, broken between its parts: `[--gap-ms <ms>]` and `(--junit "<path>" | --libtest
 * "<path>")` each stay whole, continuation lines indented under the first part. A part wider than
 * a whole line is broken at its spaces.
 */
export function usageLines(head: string, usage: string, width: number): string[] {
  const indent = Math.min(head.length + 1, Math.floor(width / 4))
  const lines: string[] = []
  let line = head
  for (const part of withPlaceholders(splitOutside(usage, true))) {
    if (line.length + 1 + part.length <= width) {
      line = `${line} ${part}`
      continue
    }
    if (line.trim() !== '') lines.push(line)
    const [first = '', ...rest] = wrap(part, width, indent + 2, indent)
    lines.push(...rest.length === 0 ? [] : [`${' '.repeat(indent)}${first}`, ...rest.slice(0, -1)])
    line = rest.length === 0 ? `${' '.repeat(indent)}${first}` : (rest.at(-1) as string)
  }
  lines.push(line)
  return lines
}

// --- internal ---

/** `--runs` and `<n>` as one part, `--junit` and `"<path>"` too: a flag is never parted from its value. */
function withPlaceholders(parts: readonly string[]): string[] {
  const joined: string[] = []
  for (const part of parts) {
    const previous = joined.at(-1)
    if (previous !== undefined && /^-[^ ]*$/.test(previous) && /^"?</.test(part)) joined[joined.length - 1] = `${previous} ${part}`
    else joined.push(part)
  }
  return joined
}

/** `--out` and `rate.json` as one unit (a word after a flag is taken as its value). */
function withValues(words: readonly string[]): string[] {
  const units: string[] = []
  for (const word of words) {
    const previous = units.at(-1)
    if (previous !== undefined && /^--?[^ =]*$/.test(previous) && !word.startsWith('-')) units[units.length - 1] = `${previous} ${word}`
    else units.push(word)
  }
  return units
}

/** Words split at spaces outside single or double quotes; the quotes stay in the words. */
function shellSplit(command: string): string[] {
  return splitOutside(command, false)
}

/** Parts split at spaces outside quotes, and with `brackets` outside [], () and <> too. */
function splitOutside(text: string, brackets: boolean): string[] {
  const parts: string[] = []
  let part = ''
  let depth = 0
  let quote: string | undefined
  for (const ch of text) {
    if (quote !== undefined) {
      if (ch === quote) quote = undefined
    } else if (ch === '"' || ch === "'") {
      quote = ch
    } else if (brackets && '[(<'.includes(ch)) {
      depth++
    } else if (brackets && '])>'.includes(ch) && depth > 0) {
      depth--
    } else if (ch === ' ' && depth === 0) {
      if (part !== '') parts.push(part)
      part = ''
      continue
    }
    part += ch
  }
  if (part !== '') parts.push(part)
  return parts
}
