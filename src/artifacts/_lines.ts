import { closeSync, openSync, readSync } from 'node:fs'

/** Bytes read at a time: facts.jsonl of a large run is hundreds of megabytes and is never held whole. */
const CHUNK_BYTES = 1 << 20

/**
 * Each line of a file, read in chunks so a file of any size is never one string, with its byte range
 * [start, end) (the newline included) and its number from 1. Lines are split on bytes, not decoded
 * text: a chunk may end inside a multi-byte character.
 */
export function forEachLine(path: string, visit: (text: string, start: number, end: number, line: number) => void): void {
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
      const data = Buffer.concat([carry, chunk.subarray(0, read)])
      let from = 0
      for (let newline = data.indexOf(10); newline !== -1; newline = data.indexOf(10, from)) {
        visit(data.toString('utf8', from, newline), carryStart + from, carryStart + newline + 1, ++line)
        from = newline + 1
      }
      carry = data.subarray(from)
      carryStart += from
    }
    if (carry.length > 0) visit(carry.toString('utf8'), carryStart, carryStart + carry.length, ++line)
  } finally {
    closeSync(fd)
  }
}
