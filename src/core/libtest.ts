/**
 * Rust libtest output (`cargo test`), read line by line: pure, so a log of any size streams through
 * it. The three mistakes the nightly-flake PR found in its own parser (../shared/seeds/) are what
 * this keeps apart: a test is keyed by its binary and its name, since `tests::adds` exists in many
 * crates; `Doc-tests <crate>` opens a section of its own, so doc-tests are never credited to the
 * binary that ran before them; and how many runs saw a test is left to the caller to count.
 */

/** One test's result in one log. */
export interface LibtestResult {
  /** The test binary without its hash (`alpha` for `target/debug/deps/alpha-e62994b938fd5803`), or `<crate> (doc-tests)`. */
  binary: string
  name: string
  outcome: 'passed' | 'failed' | 'ignored'
  /** 1-based line of its `test … ...` line. */
  line: number
}

/** A line the parser cannot place: the log is not libtest output as this parser knows it. */
export interface LibtestProblem {
  line: number
  message: string
}

const RUNNING = /^\s*Running\s+(?:unittests\s+)?\S.*\(([^)]+)\)\s*$/
const DOC_TESTS = /^\s*Doc-tests\s+(\S+)\s*$/
const TEST = /^test (.+) \.\.\. (.*)$/
const FAILURE_HEADER = /^---- (.+) stdout ----$/
const OUTCOMES: Record<string, LibtestResult['outcome']> = { ok: 'passed', FAILED: 'failed', ignored: 'ignored' }

/** Keeps the current binary and section; hand it lines in order, then take results and failure text. */
export class LibtestParser {
  private _binary: string | undefined
  private _line = 0
  /** The test whose `---- name stdout ----` block is being read, and its lines. */
  private _failure: { binary: string; name: string; text: string } | undefined
  private readonly _messages = new Map<string, string>()
  private readonly _maxMessageChars: number
  private _sections = 0

  /** @param maxMessageChars the most of one failure's text kept (evidence, not a log copy) */
  constructor(maxMessageChars: number) {
    this._maxMessageChars = maxMessageChars
  }

  /** The result on this line, if any; a problem when a line looks like a result but cannot be read. */
  push(text: string): LibtestResult | LibtestProblem | undefined {
    this._line++
    const line = text.replace(/\r$/, '')
    const running = RUNNING.exec(line)
    if (running) return this._open(binaryOf(running[1] as string))
    const doc = DOC_TESTS.exec(line)
    if (doc) return this._open(`${doc[1] as string} (doc-tests)`)
    if (this._readFailureText(line)) return undefined
    const test = TEST.exec(line)
    if (!test) return undefined
    const [, name, status] = test as unknown as [string, string, string]
    // `cargo bench` timings are measurements, not pass/fail results.
    if (status.startsWith('bench:')) return undefined
    // `ignored, <reason>` since Rust 1.71.
    const outcome = OUTCOMES[status.split(',')[0] as string]
    if (outcome === undefined) return { line: this._line, message: `unknown test status "${status.slice(0, 80)}" (expected ok, FAILED or ignored)` }
    if (this._binary === undefined) return { line: this._line, message: 'test result before any `Running` or `Doc-tests` line: its binary is unknown' }
    return { binary: this._binary, name, outcome, line: this._line }
  }

  /** The captured output of a failed test of `binary`, as printed under `---- name stdout ----`; ask once the log has ended. */
  messageOf(binary: string, name: string): string | undefined {
    this._closeFailure()
    return this._messages.get(`${binary}\u0000${name}`)
  }

  // --- internal ---

  /** `Running` and `Doc-tests` lines seen: a log of binaries that hold no test is still libtest output. */
  get sections(): number {
    return this._sections
  }

  private _open(binary: string): undefined {
    this._sections++
    this._closeFailure()
    this._binary = binary
    return undefined
  }

  private _closeFailure(): void {
    if (this._failure) this._messages.set(`${this._failure.binary}\u0000${this._failure.name}`, this._failure.text.trim())
    this._failure = undefined
  }

  /** Whether the line belongs to a failure's captured output (kept, capped, for the evidence). */
  private _readFailureText(line: string): boolean {
    const header = FAILURE_HEADER.exec(line)
    if (header && this._binary !== undefined) {
      this._closeFailure()
      this._failure = { binary: this._binary, name: header[1] as string, text: '' }
      return true
    }
    if (this._failure === undefined) return false
    if (line === 'failures:' || line.startsWith('test result:')) {
      this._closeFailure()
      return false
    }
    const room = this._maxMessageChars - this._failure.text.length
    if (room > 0) this._failure.text += `${line}\n`.slice(0, room)
    return true
  }
}

/** Whether the parser's answer is a problem rather than a result. */
export function isLibtestProblem(value: LibtestResult | LibtestProblem): value is LibtestProblem {
  return 'message' in value
}

// --- internal ---

/** `target/debug/deps/alpha-e62994b938fd5803` → `alpha`: the hash changes with every build, the name does not. */
function binaryOf(path: string): string {
  const base = path.split(/[\\/]/).pop() as string
  return base.replace(/\.exe$/, '').replace(/-[0-9a-f]{16}$/, '')
}
