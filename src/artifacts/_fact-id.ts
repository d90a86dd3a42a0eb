/**
 * How every test-mode facts line flakeproof writes begins (toFactLines: `trial`, then `test_id`):
 * `{"trial":<digits>,"test_id":"`, then an id that holds no backslash, then `"`.
 */
const TRIAL = bytesOf('{"trial":')
const TEST_ID = bytesOf(',"test_id":"')
const KEY = Buffer.from('"test_id"')
/** `\u`: the only escape that can spell a letter, so the only way a key can be "test_id" without saying so. */
const UNICODE_ESCAPE = Buffer.from('\\u')
const QUOTE = 0x22
const BACKSLASH = 0x5c

/**
 * Reads the test id of facts lines without decoding or parsing them, when a line begins as
 * flakeproof writes it and names "test_id" once; undefined for any other line, which the caller
 * then parses. When the line is JSON at all, the id returned is exactly `JSON.parse(line).test_id`:
 * a JSON string without a backslash is its own text (a quote or a backslash byte is never part of
 * a multi-byte character). A key given twice, which JSON.parse takes the last of, sends the line to
 * the parser: any later `"test_id"` in the line does, and so does any later `\u` escape, the only
 * way to spell that key otherwise (`"test\u005fid"`).
 *
 * One reader per file: lines come in order, so where the next `"test_id"` and the next `\u` are in
 * the current chunk is found once by a native search and kept, instead of searched per line.
 */
export class WrittenTestIds {
  private _data: Buffer | undefined
  /** Where the next `"test_id"` and `\u` are in `_data`: -1 none left, -2 not searched yet. */
  private _nextKey = -2
  private _nextEscape = -2

  /** The id of the line `data[from, to)`, a line of the chunk `data`; lines of a chunk come in order. */
  idOf(data: Buffer, from: number, to: number): string | undefined {
    let at = startsWith(data, from, to, TRIAL)
    if (at < 0) return undefined
    const digits = at
    while (at < to && (data[at] as number) >= 0x30 && (data[at] as number) <= 0x39) at++
    if (at === digits) return undefined
    const idStart = startsWith(data, at, to, TEST_ID)
    if (idStart < 0) return undefined
    let idEnd = idStart
    while (idEnd < to && data[idEnd] !== QUOTE) {
      if (data[idEnd] === BACKSLASH) return undefined
      idEnd++
    }
    if (idEnd === to) return undefined
    if (data !== this._data) {
      this._data = data
      this._nextKey = -2
      this._nextEscape = -2
    }
    // Each position is searched again only once this line has passed it.
    if (this._nextKey !== -1 && this._nextKey <= idEnd) this._nextKey = data.indexOf(KEY, idEnd + 1)
    if (this._nextEscape !== -1 && this._nextEscape <= idEnd) this._nextEscape = data.indexOf(UNICODE_ESCAPE, idEnd + 1)
    if (this._nextKey !== -1 && this._nextKey < to) return undefined
    if (this._nextEscape !== -1 && this._nextEscape < to) return undefined
    return data.toString('utf8', idStart, idEnd)
  }
}

// --- internal ---

function bytesOf(text: string): Uint8Array {
  return new TextEncoder().encode(text)
}

/** The index after `prefix` when `data[at, to)` starts with it, else -1. */
function startsWith(data: Uint8Array, at: number, to: number, prefix: Uint8Array): number {
  if (to - at < prefix.length) return -1
  for (let i = 0; i < prefix.length; i++) if (data[at + i] !== prefix[i]) return -1
  return at + prefix.length
}
