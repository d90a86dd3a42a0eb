import { describe, expect, it } from 'vitest'
import { CappedCapture } from '../../src/runner/_capture.js'

describe('CappedCapture', () => {
  it('keeps everything under the limit', () => {
    const capture = new CappedCapture(16)
    capture.push(Buffer.from('hello '))
    capture.push(Buffer.from('world'))
    expect(capture.text()).toBe('hello world')
    expect(capture.totalBytes).toBe(11)
  })

  it('keeps the first and last half of the limit across many chunks and marks the cut', () => {
    const capture = new CappedCapture(8)
    for (const chunk of ['ab', 'cd', 'ef', 'gh', 'ij', 'kl', 'mn']) capture.push(Buffer.from(chunk))
    expect(capture.text()).toBe('abcd\n[flakeproof: 6 bytes cut]\nklmn')
    expect(capture.totalBytes).toBe(14)
  })

  it('splits a single large chunk between head and tail', () => {
    const capture = new CappedCapture(6)
    capture.push(Buffer.from('0123456789'))
    expect(capture.text()).toBe('012\n[flakeproof: 4 bytes cut]\n789')
  })
})
