/** Per stream and trial: enough to read an error, small enough for 100k trials in one process. */
export const CAPTURE_LIMIT_BYTES = 64 * 1024

/**
 * Keeps the first and last half of `limit` bytes of a stream and counts the rest, so a trial that
 * prints gigabytes costs 64 KiB. The head shows how it started, the tail how it ended.
 */
export class CappedCapture {
  private readonly _half: number
  private readonly _head: Buffer[] = []
  private _headBytes = 0
  private _tail: Buffer[] = []
  private _tailBytes = 0
  /** Every byte seen, kept or not. */
  totalBytes = 0

  constructor(limit = CAPTURE_LIMIT_BYTES) {
    this._half = Math.floor(limit / 2)
  }

  push(chunk: Buffer): void {
    this.totalBytes += chunk.length
    if (this._headBytes < this._half) {
      const room = this._half - this._headBytes
      this._head.push(chunk.subarray(0, room))
      this._headBytes += Math.min(room, chunk.length)
      chunk = chunk.subarray(room)
    }
    if (chunk.length === 0) return
    this._tail.push(chunk)
    this._tailBytes += chunk.length
    while (this._tailBytes - (this._tail[0]?.length ?? 0) >= this._half) {
      this._tailBytes -= this._tail.shift()?.length ?? 0
    }
  }

  text(): string {
    const head = Buffer.concat(this._head).toString('utf8')
    const tailBuffer = Buffer.concat(this._tail)
    const kept = this._headBytes + Math.min(this._tailBytes, this._half)
    const cut = this.totalBytes - kept
    const tail = tailBuffer.subarray(Math.max(0, tailBuffer.length - this._half)).toString('utf8')
    return cut > 0 ? `${head}\n[flakeproof: ${cut} bytes cut]\n${tail}` : head + tail
  }
}
