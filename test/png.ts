import { inflateSync } from 'node:zlib'

/**
 * Distinct colours (hex RGB, the top-left pixel first) in an 8-bit RGB or RGBA PNG (what Chromium's
 * screenshots are), up to `limit`: enough to tell a blank screenshot (one colour) from a drawn one, without an image library.
 */
export function distinctColours(png: Buffer, limit = 16): string[] {
  let offset = 8
  let width = 0
  let height = 0
  let channels = 0
  const data: Buffer[] = []
  while (offset < png.length) {
    const length = png.readUInt32BE(offset)
    const type = png.toString('ascii', offset + 4, offset + 8)
    const body = png.subarray(offset + 8, offset + 8 + length)
    if (type === 'IHDR') {
      width = body.readUInt32BE(0)
      height = body.readUInt32BE(4)
      const [depth, colourType, interlace] = [body[8], body[9], body[12]]
      if (depth !== 8 || (colourType !== 2 && colourType !== 6) || interlace !== 0) throw new Error(`unsupported PNG (depth ${depth}, colour type ${colourType})`)
      channels = colourType === 6 ? 4 : 3
    }
    if (type === 'IDAT') data.push(body)
    offset += 12 + length
  }
  const raw = inflateSync(Buffer.concat(data))
  const stride = width * channels
  let previous = Buffer.alloc(stride)
  const colours = new Set<string>()
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]
    const line = Buffer.from(raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1)))
    for (let i = 0; i < stride; i++) {
      const a = i >= channels ? (line[i - channels] ?? 0) : 0
      const b = previous[i] ?? 0
      const c = i >= channels ? (previous[i - channels] ?? 0) : 0
      const predictor = filter === 1 ? a : filter === 2 ? b : filter === 3 ? (a + b) >> 1 : filter === 4 ? paeth(a, b, c) : 0
      line[i] = ((line[i] ?? 0) + predictor) & 0xff
    }
    for (let x = 0; x < stride; x += channels) {
      colours.add(line.toString('hex', x, x + 3))
      if (colours.size >= limit) return [...colours]
    }
    previous = line
  }
  return [...colours]
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c
  const [pa, pb, pc] = [Math.abs(p - a), Math.abs(p - b), Math.abs(p - c)]
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c
}
