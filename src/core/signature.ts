import { stripAnsi } from './ansi.js'

/**
 * A failure's signature (docs/attribution.md): the error's name and message with everything that
 * changes from run to run replaced by placeholders, and the innermost stack frame in the user's own
 * code (file relative to the project, and function; never the line, which moves with every edit).
 * Two failures with the same signature fail the same way. Pure: text in, text out.
 */

/** Where a failure happened in the user's code. */
export interface UserFrame {
  /** Relative to the project root, with `/`; absolute only when outside it. */
  file: string
  /** The function, when the stack names one (`fetchPrice`; anonymous callbacks have none). */
  fn: string | null
}

export interface FailureParts {
  /** `TypeError`, `AssertionError`, `panic`; null when the text names none. */
  name: string | null
  /** Normalised (normaliseMessage), whitespace collapsed, at most MESSAGE_LIMIT characters. */
  message: string
  frame: UserFrame | null
}

/** An error as runners serialise it (Vitest's TestError, a thrown Error). */
export interface ErrorLike {
  name?: unknown
  message?: unknown
  stack?: unknown
}

/** Characters kept of a normalised message: a long diff says nothing more about the way it failed. */
export const MESSAGE_LIMIT = 200

/** The signature of an error object: its name, its message, and the innermost user frame of its stack. */
export function signatureOfError(error: ErrorLike, root?: string): string {
  const message = typeof error.message === 'string' ? error.message : ''
  const stack = typeof error.stack === 'string' ? stripAnsi(error.stack) : ''
  const name = typeof error.name === 'string' && error.name !== '' ? error.name : null
  if (message.trim() === '' && name === null) return signatureOfText(stack, root)
  const frames = jsFrames(stack.split('\n'), root)
  return formatSignature({ name, message: normaliseMessage(message), frame: frames[0] ?? null })
}

/**
 * The signature of a failure known only as text: a runner's failure message with its stack (Jest),
 * a JUnit failure (Playwright, pytest, …), a `cargo test` block, a command's stderr.
 */
export function signatureOfText(text: string, root?: string): string {
  return formatSignature(parseFailureText(text, root))
}

/** `Name: message @ file (fn)`; the parts that are unknown are left out. */
export function formatSignature({ name, message, frame }: FailureParts): string {
  const head = name === null ? message : message === '' ? name : `${name}: ${message}`
  if (!frame) return head
  return `${head} @ ${frame.file}${frame.fn ? ` (${frame.fn})` : ''}`
}

/**
 * A message with what varies between runs replaced, in this order: ANSI codes (removed), URLs
 * `<url>`, paths `<path>`, UUIDs `<uuid>`, ISO times `<time>`, IP addresses `<ip>` and ports
 * `:<port>`, hex ids `<hex>`, quoted values `<str>`, durations `<duration>`, numbers `<n>`; then
 * whitespace collapsed to one space and the result cut at MESSAGE_LIMIT. Applying it twice changes
 * nothing (placeholders hold none of what is replaced).
 */
export function normaliseMessage(message: string): string {
  let text = stripAnsi(message)
  for (const [pattern, replacement] of RULES) text = text.replace(pattern, replacement)
  // Quotes are matched within a line: an apostrophe or an opening quote never swallows the next lines.
  text = text
    .split('\n')
    .map((line) => line.replace(QUOTED, '<str>'))
    .join('\n')
    // A quote left unpaired on its line would pair with another once lines are joined: it goes (an apostrophe stays).
    .replace(/(?<![\w])['"]|['"](?![\w])/g, '')
  for (const [pattern, replacement] of AFTER_QUOTES) text = text.replace(pattern, replacement)
  const collapsed = text.replace(/\s+/g, ' ').trim()
  return collapsed.length <= MESSAGE_LIMIT ? collapsed : `${collapsed.slice(0, MESSAGE_LIMIT)}…`
}

/** The name, message and user frame of a failure given as text; see signatureOfText. */
export function parseFailureText(raw: string, root?: string): FailureParts {
  // flakeproof's own prefix for a JUnit case that was retried (src/artifacts/junit-read.ts).
  const text = stripAnsi(raw).replace(/^failed(?:, then passed on attempt \d+| all \d+ attempts): /, '')
  const lines = text.split(/\r?\n/)
  return rustPanic(lines, root) ?? pytestFailure(lines, root) ?? pythonTraceback(lines, root) ?? jsFailure(lines, root)
}

// --- internal ---

type Rule = readonly [RegExp, string]

const RULES: readonly Rule[] = [
  [/\bfile:\/\/\/?(?:[^\s'"`)]+)/g, '<path>'],
  [/\b[a-z][\w+.-]*:\/\/[^\s'"`)]+/gi, '<url>'],
  [/(?<![\w.])(?:\/[\w.@+~%-]+){2,}\/?/g, '<path>'],
  [/\b[A-Za-z]:\\(?:[^\\\s'"]+\\)*[^\\\s'"]*/g, '<path>'],
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<uuid>'],
  [/\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b/g, '<time>'],
  [/\b\d{1,3}(?:\.\d{1,3}){3}\b/g, '<ip>'],
  [/(\blocalhost|<ip>):\d{1,5}\b/g, '$1:<port>'],
  [/\b0x[0-9a-f]+\b/gi, '<hex>'],
  [/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b/gi, '<hex>'],
]

/** A quoted value: the quote opens after no letter or digit and closes before none (so "can't" is no quote). */
const QUOTED = /(?<![\w])(?:'[^'\n]*'|"[^"\n]*")(?![\w])/g

const AFTER_QUOTES: readonly Rule[] = [
  [/\b\d+(?:\.\d+)?\s?(?:ns|µs|us|ms|s|secs?|seconds?|m|mins?|minutes?|h|hours?)\b/g, '<duration>'],
  [/(?<![\w<])\d+(?:\.\d+)?(?:e[+-]?\d+)?(?![\w>])/gi, '<n>'],
]

/** Frames of the runners, the runtime and libraries: never the user's code. */
const NOT_USER_CODE = [
  /(?:^|[/\\])node_modules[/\\]/,
  /^node:/,
  /^internal[/\\]/,
  /^<anonymous>$|^native$/,
  /[/\\](?:site|dist)-packages[/\\]/,
  /[/\\]lib[/\\]python\d[\d.]*[/\\]/,
  /^<frozen /,
  /^\/rustc\//,
  /[/\\]\.cargo[/\\]registry[/\\]/,
  // flakeproof's own runner and reporters when it runs from a checkout rather than node_modules, and
  // the chunks of its build they share (scripts/bundle-dist.mjs names their folder for this).
  /[/\\]dist[/\\](?:plugin[/\\](?:vitest|jest|playwright)|flakeproof-chunks)[/\\]/,
  // A browser page's frames of Vite's client and Vitest's own page code (browser mode).
  /^https?:\/\/[^/]+\/(?:@vite\/|@id\/|__vitest)/,
]

function isUserFile(file: string): boolean {
  return !NOT_USER_CODE.some((pattern) => pattern.test(file))
}

/** A frame's file as the signature shows it: relative to the project root, `/`-separated. */
function relativeFile(raw: string, root: string | undefined): string {
  let file = raw.replace(/^file:\/\//, '').replace(/[?#].*$/, '').split('\\').join('/')
  // Browser mode: the page loads files from Vite's server, on a port that changes every run —
  // `/@fs/<absolute path>` outside the root, the absolute path or one relative to the root inside.
  const served = /^https?:\/\/[^/]+(\/.*)$/.exec(file)
  const absolute = served?.[1]?.startsWith('/@fs/') === true
  if (served) file = (served[1] as string).replace(/^\/@fs(?=\/)/, '')
  if (/^\/[A-Za-z]:\//.test(file)) file = file.slice(1)
  const base = root?.split('\\').join('/').replace(/\/+$/, '')
  if (base && file.startsWith(`${base}/`)) return file.slice(base.length + 1)
  if (served && !absolute) return file.replace(/^\//, '')
  return file.replace(/^\.\//, '')
}

/** A frame's function as the signature shows it: no `async`, receiver `Object.` or alias; anonymous ones are none. */
function functionName(raw: string | undefined): string | null {
  if (raw === undefined) return null
  const name = raw
    .replace(/^async /, '')
    .replace(/^new /, '')
    .replace(/ \[as [^\]]+\]$/, '')
    .replace(/^(?:Object|Context|Module)\./, '')
  return name === '' || name.includes('<anonymous>') ? null : name
}

// V8 frames: `at fn (file:line:col)` or `at file:line:col`. The column is required: Playwright's
// `at ../src/price.js:1` is a hint beside the source excerpt, not a frame.
const JS_FRAME = /^\s*at (?:(.+?) \((.+?):\d+:\d+\)|(.+?):\d+:\d+)\s*$/

// Vitest's own rendering of a stack (its JUnit report, its terminal): ` ❯ fn file:line:col` or ` ❯ file:line:col`.
const VITEST_FRAME = /^\s*❯ (?:(\S+) )?(\S+?):\d+:\d+\s*$/

function jsFrames(lines: readonly string[], root: string | undefined): UserFrame[] {
  const frames: UserFrame[] = []
  for (const line of lines) {
    const v = VITEST_FRAME.exec(line)
    const m = v ? [line, v[1], v[2]] : JS_FRAME.exec(line)
    if (!m) continue
    const file = (m[2] ?? m[3] ?? '').trim()
    if (!isUserFile(file) || file === '') continue
    frames.push({ file: relativeFile(file, root), fn: functionName(m[1]) })
  }
  return frames
}

/** `TypeError: …`, `AssertionError [ERR_ASSERTION]: …`, `Uncaught Error: …`: an error's first line. */
const ERROR_LINE = /^\s*(?:Uncaught\s+)?((?:[A-Za-z_$][\w$.]*?)?(?:Error|Exception|Failure|Panic)\w*)(?:\s\[[^\]]*\])?:\s?(.*)$/

/** Where an error's message ends: its stack, a source excerpt, or a runner's section. */
function endsMessage(line: string): boolean {
  // Vitest's JUnit text adds its diff (`- Expected` / `+ Received`) after the message; Jest's own
  // message holds its diff (`- Expected  - 2`), which stays.
  return /^\s+at \S/.test(line) || /^\s*❯ /.test(line) || /^⎯/.test(line) || line === '- Expected' || /^\s*>?\s*\d+\s*\|/.test(line) || /^\s*\|/.test(line) || /^\s*(?:Call Log|Call log|Error Context|stack backtrace|note):/.test(line)
}

function messageFrom(lines: readonly string[], start: number, first: string): string {
  const kept = [first]
  for (const line of lines.slice(start + 1)) {
    if (endsMessage(line)) break
    kept.push(line)
  }
  return kept.join('\n')
}

/** A JavaScript error as text (Jest's failure message, Playwright's and Vitest's JUnit failures, Node's stderr). */
function jsFailure(lines: readonly string[], root: string | undefined): FailureParts {
  const at = lines.findIndex((line) => ERROR_LINE.test(line))
  const frames = jsFrames(lines.slice(Math.max(at, 0)), root)
  if (at >= 0) {
    const m = ERROR_LINE.exec(lines[at] as string) as RegExpExecArray
    // A JUnit failure's text starts with its `message` attribute, then the error again with its name
    // and whatever the runner adds (Vitest's diff, Playwright's source excerpt): the attribute is the message.
    const blank = lines.findIndex((line) => line.trim() === '')
    const head = lines.slice(0, blank >= 0 ? Math.min(blank, at) : at)
    const given = head.length > 0 && (m[2] ?? '').trim().startsWith((head[0] as string).trim()) ? head.join('\n') : messageFrom(lines, at, m[2] ?? '')
    return { name: m[1] as string, message: normaliseMessage(given), frame: frames[0] ?? null }
  }
  // No named error: the first line that reads like one (a command's stderr), else the first that is not empty.
  const chosen = lines.findIndex((line) => LOOKS_LIKE_ERROR.test(line))
  const start = chosen >= 0 ? chosen : lines.findIndex((line) => line.trim() !== '')
  // Only that line: what follows an unnamed one is a runner's layout (Playwright's headers), not its message.
  return { name: null, message: start >= 0 ? normaliseMessage(lines[start] as string) : '', frame: frames[0] ?? null }
}

const LOOKS_LIKE_ERROR = /error|exception|fail|fatal|assert|panic|denied|refused|timed? ?out/i

/**
 * A Rust panic (`cargo test`): `thread 'name' (id) panicked at src/lib.rs:3:9:` then the message,
 * or Rust before 1.73: `panicked at 'message', src/lib.rs:3:9`. The frame is the panic's file only:
 * the function is named only with RUST_BACKTRACE, and a signature must not depend on it.
 */
function rustPanic(lines: readonly string[], root: string | undefined): FailureParts | undefined {
  for (const [index, line] of lines.entries()) {
    const modern = /panicked at (.+?):\d+:\d+:\s*$/.exec(line)
    if (modern) {
      const message: string[] = []
      for (const next of lines.slice(index + 1)) {
        if (/^(?:stack backtrace:|note: )/.test(next) || (next.trim() === '' && message.length > 0)) break
        message.push(next)
      }
      return { name: 'panic', message: normaliseMessage(message.join('\n')), frame: { file: relativeFile(modern[1] as string, root), fn: null } }
    }
    const old = /panicked at '(.*)', (.+?):\d+:\d+\s*$/.exec(line)
    if (old) return { name: 'panic', message: normaliseMessage(old[1] as string), frame: { file: relativeFile(old[2] as string, root), fn: null } }
  }
  return undefined
}

/**
 * pytest's report of a failure (JUnit text, terminal): the `E   ` lines are the message, the last
 * `path.py:line: Name` its place and name, and the `def` above that place its function.
 */
function pytestFailure(lines: readonly string[], root: string | undefined): FailureParts | undefined {
  const explained = lines.filter((line) => /^E {2,}|^E$/.test(line)).map((line) => line.replace(/^E\s*/, ''))
  const places = lines.flatMap((line, index) => {
    const m = /^(\S+\.py):\d+: ?(.*)$/.exec(line)
    return m ? [{ file: m[1] as string, tail: (m[2] ?? '').trim(), index }] : []
  })
  if (explained.length === 0 || places.length === 0) return undefined
  const last = places.at(-1) as (typeof places)[number]
  const named = ERROR_LINE.exec(explained[0] as string)
  const name = named ? (named[1] as string) : /^[A-Za-z_][\w.]*$/.test(last.tail) ? last.tail : null
  const message = named ? [named[2] ?? '', ...explained.slice(1)].join('\n') : explained.join('\n')
  const user = [...places].reverse().find((place) => isUserFile(place.file)) ?? last
  let fn: string | null = null
  for (let i = user.index - 1; i >= 0; i--) {
    const line = lines[i] as string
    if (/^_ _ _|^_{3,}/.test(line)) break
    const def = /^\s*(?:async\s+)?def (\w+)\(/.exec(line)
    if (def) {
      fn = def[1] as string
      break
    }
  }
  return { name, message: normaliseMessage(message), frame: { file: relativeFile(user.file, root), fn } }
}

/** A plain Python traceback: `File "…", line N, in fn` frames, outermost first, then `Name: message`. */
function pythonTraceback(lines: readonly string[], root: string | undefined): FailureParts | undefined {
  const start = lines.findIndex((line) => line.startsWith('Traceback (most recent call last):'))
  if (start < 0) return undefined
  const frames: UserFrame[] = []
  let end = lines.length
  for (let i = start + 1; i < lines.length; i++) {
    const line = lines[i] as string
    const m = /^\s*File "(.+?)", line \d+, in (\S+)/.exec(line)
    if (m) {
      if (isUserFile(m[1] as string)) frames.push({ file: relativeFile(m[1] as string, root), fn: m[2] === '<module>' ? null : (m[2] as string) })
      continue
    }
    if (!/^\s/.test(line) && line.trim() !== '') {
      end = i
      break
    }
  }
  const last = lines[end] ?? ''
  const named = /^([A-Za-z_][\w.]*)(?::\s?(.*))?$/.exec(last)
  return { name: named ? (named[1] as string) : null, message: normaliseMessage(named ? (named[2] ?? '') : last), frame: frames.at(-1) ?? null }
}

/**
 * A failed command's signature (command mode): its stderr read as a failure text; with nothing
 * there, how it ended (`timed out`, `killed by SIGKILL`, `exit code 3`), which is then all there is.
 */
export function signatureOfCommandFailure(
  failure: { stderr: string; exitCode: number | null; signal: string | null; timedOut: boolean },
  root?: string,
): string {
  if (failure.timedOut) return 'timed out'
  const parts = parseFailureText(failure.stderr, root)
  if (parts.message !== '' || parts.name !== null) return formatSignature(parts)
  return failure.signal ? `killed by ${failure.signal}` : `exit code ${failure.exitCode ?? 'unknown'}`
}

/**
 * `--flaky-signature` / `--signature`: whether `signature` is the one asked for — the same text, a
 * part of it, or a match of it read as a regular expression (a text that is no valid expression is
 * matched as text only).
 */
export function signatureMatches(signature: string, wanted: string): boolean {
  if (signature === wanted || signature.includes(wanted)) return true
  try {
    return new RegExp(wanted).test(signature)
  } catch {
    return false
  }
}
