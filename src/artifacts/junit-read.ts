import sax from 'sax'
import { readTextChunks } from './_chunks.js'

/**
 * JUnit XML as test runners write it, read in fixed-size chunks through sax in strict mode
 * (docs/contracts.md §7): a report of any size is never held whole, and a report that is not
 * well-formed XML is refused with its file and line instead of being half-counted. sax rather than
 * saxes: both are strict enough here and give lines, but saxes buffers each text and CDATA node whole
 * before handing it over, so one test's 100 MB of `system-out` would be 100 MB in memory; sax hands
 * text over every 64 KiB (its MAX_BUFFER_LENGTH), which is what bounds what reading holds. Understood:
 * `testsuites`/`testsuite` nesting at any depth, `failure`, `error` and `skipped`, and the retry
 * elements of Maven Surefire, cargo-nextest and Playwright (`flakyFailure`/`flakyError`: failed,
 * then passed on a retry; `rerunFailure`/`rerunError`: failed on every retry).
 */

/** One `<testcase>` of one report. */
export interface JUnitCase {
  /** `classname`, else the `file` attribute, else the enclosing suite's name ('' when none). */
  group: string
  name: string
  /** Failed if any attempt in this report failed, the first included: a pass on retry hides a failure, it does not undo it. */
  outcome: 'passed' | 'failed' | 'skipped'
  /** Attempts beyond the first (`flaky*` and `rerun*` elements). */
  retries: number
  /** The first failure's `message` and text, capped; null when it passed. */
  error: string | null
  elapsedMs: number
  stdout: string
  stderr: string
}

/** What reading held at once, counted so a test can bound it without timing anything. */
export interface ReadCounters {
  files: number
  bytes: number
  /** The most characters of one report held at once: the chunk being parsed plus the text being kept. */
  maxHeldChars: number
}

/** The most characters kept of one failure message or one output stream of one test case. */
export const MAX_CASE_TEXT = 4096

/**
 * Every test case of the report at `path`, in document order.
 * @throws Error naming the file and line (`reports/a.xml:3:7: unclosed tag: testcase`) when it is
 *   not well-formed XML or not a JUnit report; nothing of it is returned then.
 */
export function readJUnitFile(path: string, counters?: ReadCounters): JUnitCase[] {
  const reader = new JUnitReader(path)
  readTextChunks(path, (text, bytes) => {
    reader.write(text)
    if (counters) {
      counters.bytes += bytes
      counters.maxHeldChars = Math.max(counters.maxHeldChars, text.length + reader.heldChars)
    }
  })
  const cases = reader.close()
  if (counters) counters.files++
  return cases
}

// --- internal ---

const FAILED = new Set(['failure', 'error'])
const RETRIED = new Set(['flakyFailure', 'flakyError', 'rerunFailure', 'rerunError'])

interface OpenCase {
  group: string
  name: string
  elapsedMs: number
  failed: boolean
  /** A `failure` or `error` element: the last attempt failed too. */
  failedLast: boolean
  skipped: boolean
  retries: number
  error: string | null
  stdout: string
  stderr: string
}

/** Where text being read goes: a failure's message, or the test's own output. */
type Sink = 'error' | 'stdout' | 'stderr'

/** sax's own buffers of a text or CDATA node being read (fields of its parser, untyped by @types/sax). */
interface SaxBuffers {
  textNode: string
  cdata: string
}

class JUnitReader {
  private readonly _parser: sax.SAXParser
  private readonly _path: string
  private readonly _cases: JUnitCase[] = []
  private readonly _suites: string[] = []
  private _case: OpenCase | undefined
  /** Depth of elements inside the open test case (1 = its direct children). */
  private _depth = 0
  private _sink: Sink | undefined
  private _sawRoot = false

  constructor(path: string) {
    this._path = path
    // strictEntities: only XML's five entities; an HTML one (&nbsp;) is not well-formed XML.
    this._parser = sax.parser(true, { strictEntities: true, position: true } as sax.SAXOptions)
    this._parser.onopentag = (tag) => this._open(tag as sax.Tag)
    this._parser.onclosetag = () => this._close()
    this._parser.ontext = (text) => this._text(text)
    this._parser.oncdata = (text) => this._text(text)
    this._parser.onerror = (error) => {
      // sax's message is "what\nLine: …\nColumn: …\nChar: …"; its line is 0-based.
      throw new Error(`${path}:${this._parser.line + 1}:${this._parser.column}: ${error.message.split('\n')[0]}`)
    }
  }

  /** What the parser and this reader hold of the report now, besides the chunk being parsed. */
  get heldChars(): number {
    const c = this._case
    const { textNode, cdata } = this._parser as unknown as SaxBuffers
    return textNode.length + cdata.length + (c ? (c.error?.length ?? 0) + c.stdout.length + c.stderr.length : 0)
  }

  write(chunk: string): void {
    this._parser.write(chunk)
  }

  close(): JUnitCase[] {
    this._parser.close()
    if (!this._sawRoot) throw new Error(`${this._path}:1: not a JUnit report: no <testsuites> or <testsuite> element`)
    return this._cases
  }

  private _open(tag: sax.Tag): void {
    const attr = (name: string): string => tag.attributes[name] ?? ''
    if (this._case) {
      this._depth++
      if (this._depth === 1) this._openChild(tag.name, attr)
      return
    }
    if (tag.name === 'testsuites' || tag.name === 'testsuite') {
      this._sawRoot = true
    }
    // Every element is pushed, so each close tag pops its own open one.
    this._suites.push(tag.name === 'testsuite' ? attr('name') : (this._suites.at(-1) ?? ''))
    if (tag.name !== 'testcase') return
    const seconds = Number(attr('time'))
    this._case = {
      group: attr('classname') || attr('file') || (this._suites.at(-2) ?? ''),
      name: attr('name'),
      elapsedMs: Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 0,
      failed: false,
      failedLast: false,
      skipped: false,
      retries: 0,
      error: null,
      stdout: '',
      stderr: '',
    }
    this._depth = 0
  }
  private _openChild(name: string, attr: (name: string) => string): void {
    const c = this._case as OpenCase
    if (name === 'skipped') c.skipped = true
    if (name === 'system-out') this._sink = 'stdout'
    if (name === 'system-err') this._sink = 'stderr'
    if (!FAILED.has(name) && !RETRIED.has(name)) return
    c.failed = true
    if (RETRIED.has(name)) c.retries++
    else c.failedLast = true
    // The first failure is the one the evidence keeps; a retry's is usually the same message again.
    if (c.error === null) {
      c.error = attr('message')
      this._sink = 'error'
    }
  }

  private _close(): void {
    if (this._case && this._depth > 0) {
      if (this._depth === 1) this._sink = undefined
      this._depth--
      return
    }
    this._suites.pop()
    if (!this._case) return
    const c = this._case
    const attempts = c.retries + 1
    const note = c.retries === 0 ? '' : c.failedLast ? `failed all ${attempts} attempts: ` : `failed, then passed on attempt ${attempts}: `
    this._cases.push({
      group: c.group,
      name: c.name,
      outcome: c.failed ? 'failed' : c.skipped ? 'skipped' : 'passed',
      retries: c.retries,
      error: c.error === null ? null : `${note}${c.error.trim()}`.slice(0, MAX_CASE_TEXT),
      elapsedMs: c.elapsedMs,
      stdout: c.stdout,
      stderr: c.stderr,
    })
    this._case = undefined
  }

  private _text(text: string): void {
    const c = this._case
    if (!c || this._sink === undefined || this._depth !== 1) return
    const kept = this._sink === 'error' ? (c.error ?? '') : c[this._sink]
    const room = MAX_CASE_TEXT - kept.length
    if (room <= 0) return
    const added = kept === '' || this._sink !== 'error' ? text.slice(0, room) : `\n${text}`.slice(0, room)
    if (this._sink === 'error') c.error = kept + added
    else c[this._sink] = kept + added
  }
}
