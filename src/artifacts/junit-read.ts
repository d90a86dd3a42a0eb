import sax from 'sax'
import type { ReportShape } from '../core/junit-dialect.js'
import { readTextChunks } from './_chunks.js'

/**
 * JUnit XML as test runners write it, read in fixed-size chunks through sax in strict mode
 * (docs/contracts.md §7): a report of any size is never held whole, its test cases are handed over
 * one at a time as they close, and a report that is not well-formed XML is refused with its file and
 * line instead of being half-counted. sax rather than saxes: both are strict enough here and give
 * lines, but saxes buffers each text and CDATA node whole before handing it over, so one test's
 * 100 MB of `system-out` would be 100 MB in memory; this reader takes sax's text buffers over after
 * every chunk, which is what bounds what reading holds. Understood: `testsuites`/`testsuite` nesting
 * at any depth, `failure`, `error` and `skipped`, and the retry elements of Maven Surefire,
 * cargo-nextest and Playwright (`flakyFailure`/`flakyError`: a failed attempt before a pass;
 * `rerunFailure`/`rerunError`: a failed attempt after a failure).
 */

/** One attempt of a test case: the report's retry elements make several. */
export interface JUnitAttempt {
  ok: boolean
  /** Its failure's `message` and text, capped; null when it passed. */
  error: string | null
}

/** One `<testcase>` of one report, with everything the report says around it. */
export interface JUnitCase {
  classname: string
  name: string
  /** The test case's `file` attribute, else the nearest enclosing suite's ('' when none). */
  file: string
  /** Names of the enclosing `testsuite` elements, outside in. */
  suites: readonly string[]
  /** The nearest enclosing suite's `hostname` ('' when none). */
  hostname: string
  /** The enclosing suite element's number in the report (from 0; -1 outside any): its siblings share it. */
  suite: number
  /** A `skipped` element: a skip, an xfail, a todo. Never counted, whatever else the case holds. */
  skipped: boolean
  /** In order: failed attempts first (a retry follows a failure), then the passing one if any. */
  attempts: readonly JUnitAttempt[]
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

/** Failed attempts of one test case whose texts are kept (the rest keep their message only). */
export const MAX_ATTEMPT_TEXTS = 8

/**
 * The longest attribute, comment or tag name a report may hold: 16 MiB. Real reports put whole
 * parameter values in a name (hundreds of KB); text nodes are never held whole, whatever this says.
 */
export const MAX_ATTRIBUTE_CHARS = 16 * 1024 * 1024

/**
 * Hands every test case of the report at `path` to `onCase`, in document order, and returns what the
 * report's shape says about its producer (src/core/junit-dialect.ts).
 * @throws Error naming the file and line (`reports/a.xml:3:7: unclosed tag: testcase`) when it is
 *   not well-formed XML or not a JUnit report; the cases handed over before are then not to be counted.
 */
export function readJUnitFile(path: string, onCase: (c: JUnitCase) => void, counters?: ReadCounters): ReportShape {
  const reader = new JUnitReader(path, onCase)
  readTextChunks(path, (text, bytes) => {
    reader.write(text)
    if (counters) {
      counters.bytes += bytes
      counters.maxHeldChars = Math.max(counters.maxHeldChars, text.length + reader.heldChars)
    }
  })
  const shape = reader.close()
  if (counters) counters.files++
  return shape
}

/** Every test case of the report, as a list (small reports, tests). */
export function readJUnitCases(path: string): JUnitCase[] {
  const cases: JUnitCase[] = []
  readJUnitFile(path, (c) => cases.push(c))
  return cases
}

/** Whether the case counts as failed in its run: any attempt failed (a pass on retry hides a failure, it does not undo it). */
export function outcomeOfCase(c: Pick<JUnitCase, 'skipped' | 'attempts'>): 'passed' | 'failed' | 'skipped' {
  return c.skipped ? 'skipped' : c.attempts.some((a) => !a.ok) ? 'failed' : 'passed'
}

// --- internal ---

// sax checks its buffers against this bound; text and CDATA are taken over by the reader after each
// chunk (below), so the bound only limits attributes, comments and names.
(sax as unknown as { MAX_BUFFER_LENGTH: number }).MAX_BUFFER_LENGTH = MAX_ATTRIBUTE_CHARS

/** Text held by sax before the reader takes it over: the size it hands over at, as sax itself did. */
const TEXT_FLUSH_CHARS = 64 * 1024

const FAILED = new Set(['failure', 'error'])
const RETRIED = new Set(['flakyFailure', 'flakyError', 'rerunFailure', 'rerunError'])

interface OpenCase {
  classname: string
  name: string
  file: string
  elapsedMs: number
  skipped: boolean
  /** The `failure`/`error` element's attempt: the last one failed. */
  final: JUnitAttempt | undefined
  retries: JUnitAttempt[]
  /** The attempt whose element is open, collecting its text. */
  open: JUnitAttempt | undefined
  stdout: string
  stderr: string
}

interface OpenSuite {
  name: string
  file: string
  hostname: string
  number: number
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
  private readonly _onCase: (c: JUnitCase) => void
  /** Open elements outside any test case: a suite, or null for another element. */
  private readonly _open: (OpenSuite | null)[] = []
  private _suites = 0
  private _case: OpenCase | undefined
  /** Depth of elements inside the open test case (1 = its direct children). */
  private _depth = 0
  private _sink: Sink | undefined
  private _stackTrace = false
  private readonly _shape: ReportShape = { root: '', rootAttributes: {}, suiteAttributes: {}, cases: 0, classnameIsTest: 0, classnameIsName: 0, withFile: 0 }

  constructor(path: string, onCase: (c: JUnitCase) => void) {
    this._path = path
    this._onCase = onCase
    // strictEntities: only XML's five entities; an HTML one (&nbsp;) is not well-formed XML.
    this._parser = sax.parser(true, { strictEntities: true, position: true } as sax.SAXOptions)
    this._parser.onopentag = (tag) => this._openTag(tag as sax.Tag)
    this._parser.onclosetag = () => this._close()
    this._parser.ontext = (text) => this._text(text)
    this._parser.oncdata = (text) => this._text(text)
    this._parser.onerror = (error) => {
      // sax's message is "what\nLine: …\nColumn: …\nChar: …"; its line is 0-based.
      const what = error.message.split('\n')[0] as string
      const said = what.startsWith('Max buffer length exceeded') ? `an attribute, comment or name longer than ${MAX_ATTRIBUTE_CHARS} characters (${what})` : what
      throw new Error(`${path}:${this._parser.line + 1}:${this._parser.column}: ${said}`)
    }
  }

  /** What the parser and this reader hold of the report now, besides the chunk being parsed. */
  get heldChars(): number {
    const c = this._case
    const { textNode, cdata } = this._parser as unknown as SaxBuffers
    const errors = c ? [c.final, ...c.retries].reduce((sum, a) => sum + (a?.error?.length ?? 0), 0) : 0
    return textNode.length + cdata.length + (c ? errors + c.stdout.length + c.stderr.length : 0)
  }

  write(chunk: string): void {
    this._parser.write(chunk)
    // Take sax's text over once it is long: sax itself would only hand it over at MAX_BUFFER_LENGTH,
    // which is raised above to read long attributes.
    const buffers = this._parser as unknown as SaxBuffers
    if (buffers.textNode.length >= TEXT_FLUSH_CHARS) {
      const text = buffers.textNode
      buffers.textNode = ''
      this._text(text)
    }
    if (buffers.cdata.length >= TEXT_FLUSH_CHARS) {
      const text = buffers.cdata
      buffers.cdata = ''
      this._text(text)
    }
  }

  close(): ReportShape {
    this._parser.close()
    if (this._shape.root === '') throw new Error(`${this._path}:1: not a JUnit report: no <testsuites> or <testsuite> element`)
    return this._shape
  }

  private _openTag(tag: sax.Tag): void {
    const attr = (name: string): string => tag.attributes[name] ?? ''
    if (this._case) {
      this._depth++
      if (this._depth === 1) this._openChild(tag.name, attr)
      // Surefire writes a retry's text in a stackTrace child; nextest's nested output is not its error.
      if (this._depth === 2) this._stackTrace = tag.name === 'stackTrace'
      return
    }
    const shape = this._shape
    if (shape.root === '' && (tag.name === 'testsuites' || tag.name === 'testsuite')) {
      shape.root = tag.name
      shape.rootAttributes = { ...(tag.attributes as Record<string, string>) }
    }
    if (tag.name === 'testsuite') {
      if (Object.keys(shape.suiteAttributes).length === 0) shape.suiteAttributes = { ...(tag.attributes as Record<string, string>) }
      this._open.push({ name: attr('name'), file: attr('file'), hostname: attr('hostname'), number: this._suites++ })
      return
    }
    // Every element is pushed, so each close tag pops its own open one.
    this._open.push(null)
    if (tag.name !== 'testcase') return
    const seconds = Number(attr('time'))
    const suite = this._nearestSuite()
    this._case = {
      classname: attr('classname'),
      name: attr('name'),
      file: attr('file') || (suite?.file ?? ''),
      elapsedMs: Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 0,
      skipped: false,
      final: undefined,
      retries: [],
      open: undefined,
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
    const attempt: JUnitAttempt = { ok: false, error: attr('message') }
    if (FAILED.has(name) && c.final === undefined) c.final = attempt
    else c.retries.push(attempt)
    // Beyond the first few failed attempts, their message is evidence enough.
    if (c.retries.length < MAX_ATTEMPT_TEXTS) {
      c.open = attempt
      this._sink = 'error'
    }
  }

  private _close(): void {
    if (this._case && this._depth > 0) {
      if (this._depth === 2) this._stackTrace = false
      if (this._depth === 1) {
        this._sink = undefined
        if (this._case.open) this._case.open.error = (this._case.open.error as string).trim().slice(0, MAX_CASE_TEXT)
        this._case.open = undefined
      }
      this._depth--
      return
    }
    this._open.pop()
    if (!this._case) return
    const c = this._case
    this._case = undefined
    this._onCase(this._finish(c))
  }

  private _finish(c: OpenCase): JUnitCase {
    // A failure element: its attempt came first, the reruns after it. Only retry elements: they were
    // the failed attempts before the one that passed.
    const failed = c.final ? [c.final, ...c.retries] : c.retries
    const attempts = c.final ? failed : [...failed, { ok: true, error: null }]
    const n = attempts.length
    const note = n === 1 ? '' : c.final ? `failed all ${n} attempts: ` : `failed, then passed on attempt ${n}: `
    const first = attempts[0] as JUnitAttempt
    if (first.error !== null) first.error = `${note}${first.error}`.slice(0, MAX_CASE_TEXT)
    const suite = this._nearestSuite()
    const suites = this._open.flatMap((s) => (s ? [s.name] : []))
    const shape = this._shape
    shape.cases++
    if (c.classname === 'test') shape.classnameIsTest++
    if (c.classname === c.name) shape.classnameIsName++
    if (c.file !== '') shape.withFile++
    return {
      classname: c.classname,
      name: c.name,
      file: c.file,
      suites,
      hostname: suite?.hostname ?? '',
      suite: suite?.number ?? -1,
      skipped: c.skipped,
      attempts,
      elapsedMs: c.elapsedMs,
      stdout: c.stdout,
      stderr: c.stderr,
    }
  }

  private _nearestSuite(): OpenSuite | undefined {
    for (let i = this._open.length - 1; i >= 0; i--) {
      const open = this._open[i]
      if (open) return open
    }
    return undefined
  }

  private _text(text: string): void {
    const c = this._case
    if (!c || this._sink === undefined || this._depth < 1) return
    if (this._sink === 'error') {
      // A failure's text, and a retry's stackTrace child inside it (Surefire), follow its message.
      const attempt = c.open
      if (!attempt || (this._depth !== 1 && !this._stackTrace) || text.trim() === '') return
      const kept = attempt.error ?? ''
      const room = MAX_CASE_TEXT - kept.length
      if (room > 0) attempt.error = kept + (kept === '' ? text : `\n${text}`).slice(0, room)
      return
    }
    if (this._depth !== 1) return
    const kept = c[this._sink]
    const room = MAX_CASE_TEXT - kept.length
    if (room > 0) c[this._sink] = kept + text.slice(0, room)
  }
}
