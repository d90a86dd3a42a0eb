import { isAbsolute, relative, sep } from 'node:path'
import { esc } from './_html.js'

/**
 * Links from report.html to the source: a relative `href` from the report's folder to the file, so
 * it works wherever the checkout and its output folder are opened together (a CI artifact unpacked
 * beside the checkout too). A browser opens the file itself; no browser can jump to a line of a
 * local file, so the line is in the link's text. Pure: paths in, markup out.
 */
export interface SourceContext {
  /** The absolute folder report.html is written to. */
  reportDir: string
  /** The absolute folder paths are shown relative to (where the command ran). */
  cwd: string
}

/** A place in a source file: an absolute path and, when known, a line. */
export interface SourcePlace {
  file: string
  line?: number | undefined
}

/** `<a href="../tests/a.test.ts">tests/a.test.ts:12</a>`, titled with what it opens. */
export function sourceLink(place: SourcePlace, context: SourceContext, title: (file: string) => string): string {
  const shown = shownPath(place.file, context) + (place.line === undefined ? '' : `:${place.line}`)
  return `<a class="src" href="${esc(hrefTo(place.file, context))}" title="${esc(title(place.file))}"><code>${esc(shown)}</code></a>`
}

/**
 * A stack trace or an output as markup: escaped, with every `/absolute/file.ts:line:col` outside
 * node_modules linked to its file. Without a context (a page rendered from memory) nothing is linked.
 */
export function linkFrames(text: string, context: SourceContext | undefined, title: (file: string) => string): string {
  if (!context) return esc(text)
  let html = ''
  let from = 0
  for (const match of text.matchAll(FRAME)) {
    const [whole, url = ''] = match
    const file = url.startsWith('file://') ? decodeFileUrl(url) : url
    if (file === undefined || file.includes('/node_modules/')) continue
    html += esc(text.slice(from, match.index))
    const lineAndColumn = whole.slice(url.length)
    const href = esc(hrefTo(file, context))
    html += `<a class="src" href="${href}" title="${esc(title(file))}">${esc(url)}${esc(lineAndColumn)}</a>`
    from = match.index + whole.length
  }
  return html + esc(text.slice(from))
}

/** The frames of a trace in the user's code (not node_modules, not node's own), in order. */
export function framesOf(text: string): SourcePlace[] {
  return [...text.matchAll(FRAME)].flatMap(([, url = '', line = '']) => {
    const file = url.startsWith('file://') ? decodeFileUrl(url) : url
    return file === undefined || file.includes('/node_modules/') ? [] : [{ file, line: Number(line) }]
  })
}

// --- internal ---

/**
 * An absolute POSIX path or file:// URL of a script, at the start of a word (after a space, `(` or
 * `[`: not the tail of a relative path), then `:line` and optionally `:column`.
 */
const FRAME = /(?<=^|[\s([])((?:file:\/\/)?\/[^\s()'"<>:,;`]+\.(?:[cm]?[jt]sx?|vue|svelte|astro)):(\d+)(?::\d+)?/gm

function decodeFileUrl(url: string): string | undefined {
  try {
    return decodeURIComponent(url.slice('file://'.length))
  } catch {
    return undefined
  }
}

function hrefTo(file: string, context: SourceContext): string {
  return relative(context.reportDir, file)
    .split(sep)
    .map((part) => encodeURIComponent(part))
    .join('/')
}

function shownPath(file: string, context: SourceContext): string {
  const inside = relative(context.cwd, file)
  return inside.startsWith('..') || isAbsolute(inside) ? file : inside.split(sep).join('/')
}
