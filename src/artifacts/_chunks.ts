import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs'
import { StringDecoder } from 'node:string_decoder'
import { describeKind, reasonOf } from './_fs.js'

/** Bytes read per chunk: a report of any size is read through one buffer of this size. */
export const CHUNK_BYTES = 64 * 1024

/**
 * Hands the file's text to `onText` one decoded chunk at a time (a UTF-8 character split across two
 * reads is held back, never mangled), then once more with the rest, possibly ''.
 * A named pipe, socket or device is refused before anything is read: it is opened without blocking
 * (a FIFO nobody writes would wait forever, deaf to Ctrl-C, since reading is synchronous) and looked at.
 * @throws Error `<path>: cannot read (…)` when it cannot be opened or read, or is no regular file.
 */
export function readTextChunks(path: string, onText: (text: string, bytes: number) => void): void {
  const decoder = new StringDecoder('utf8')
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES)
  let fd: number
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK)
  } catch (error) {
    throw new Error(`${path}: cannot read (${reasonOf(error)})`)
  }
  try {
    const kind = describeKind(fstatSync(fd))
    if (kind !== undefined) throw new Error(`${path}: not a regular file but ${kind}; reports are read from regular files only`)
    for (let read = readSync(fd, buffer); read > 0; read = readSync(fd, buffer)) onText(decoder.write(buffer.subarray(0, read)), read)
    onText(decoder.end(), 0)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === undefined) throw error
    throw new Error(`${path}: cannot read (${reasonOf(error)})`)
  } finally {
    closeSync(fd)
  }
}
