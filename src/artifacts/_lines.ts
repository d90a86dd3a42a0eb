import { closeSync, openSync, readSync } from 'node:fs'

/** Bytes read at a time: facts.jsonl of a large run is hundreds of megabytes and is never held whole. */
const CHUNK_BYTES = 1 << 20

/**
 * A line as bytes: `data[from, to)` is its text without the newline; `start` and `end` its byte
 * range in the file (the newline included), `line` its number from 1. `data` is reused once the
 * visit returns, so a caller keeps what it needs (lineText decodes it).
 */
export type LineVisitor = (data: Buffer, from: number, to: number, start: number, end: number, line: number) => void

/**
 * Each line of a file, read in chunks so a file of any size is never one string. Lines are split
 * on bytes, not decoded text (a chunk may end inside a multi-byte character), and handed over
 * undecoded: a reader that needs only a few lines, or a few bytes of each, decodes only those.
 */
export function forEachLine(path: string, visit: LineVisitor): void {
  const fd = openSync(path, 'r')
  try {
    const chunk = Buffer.alloc(CHUNK_BYTES)
    let carry = Buffer.alloc(0)
    // Byte offset in the file of the first byte of `carry`.
    let carryStart = 0
    let position = 0
    let line = 0
    for (let read = readSync(fd, chunk, 0, CHUNK_BYTES, position); read > 0; read = readSync(fd, chunk, 0, CHUNK_BYTES, position)) {
      position += read
      const data = carry.length === 0 ? chunk.subarray(0, read) : Buffer.concat([carry, chunk.subarray(0, read)])
      let from = 0
      for (let newline = data.indexOf(10); newline !== -1; newline = data.indexOf(10, from)) {
        visit(data, from, newline, carryStart + from, carryStart + newline + 1, ++line)
        from = newline + 1
      }
      // Copied: `chunk` is overwritten by the next read.
      carry = Buffer.from(data.subarray(from))
      carryStart += from
    }
    if (carry.length > 0) visit(carry, 0, carry.length, carryStart, carryStart + carry.length, ++line)
  } finally {
    closeSync(fd)
  }
}

/** The text of a line handed to a LineVisitor. */
export function lineText(data: Buffer, from: number, to: number): string {
  return data.toString('utf8', from, to)
}

/**
 * Whether a line is blank as `text.trim() === ''` has it, deciding a line that opens with `{` (every
 * JSON line) without decoding it.
 */
export function isBlankLine(data: Buffer, from: number, to: number): boolean {
  if (from < to && data[from] === 0x7b) return false
  return lineText(data, from, to).trim() === ''
}

/**
 * The lines of bytes [start, end) of an open file, blank ones included (a caller numbering lines
 * counts them): a range an index recorded of one test's lines, read without the rest of the file.
 */
export function linesInRange(fd: number, start: number, end: number): string[] {
  const bytes = Buffer.alloc(end - start)
  readSync(fd, bytes, 0, bytes.length, start)
  return bytes.toString('utf8').split('\n')
}
