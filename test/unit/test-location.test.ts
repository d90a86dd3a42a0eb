import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { findTestLine } from '../../src/artifacts/test-location.js'
import { tempDir } from '../utils.js'

// Line numbers counted by hand in SOURCE below (line 1 is the import).
const SOURCE = [
  "import { describe, it, test } from 'vitest'",
  '',
  "describe('cart', () => {",
  "  test('adds an item', () => {})",
  '  it.concurrent("removes an item", () => {})',
  '  test.skip(`a ${1} template`, () => {})',
  '})',
  "test('it\\'s quoted', () => {})",
].join('\n')

describe('findTestLine', () => {
  const file = join(tempDir(), 'cart.test.ts')
  writeFileSync(file, SOURCE)

  it.each([
    ['adds an item', 4],
    ['removes an item', 5],
    ["it's quoted", 8],
    // Built at run time: not in the source as written.
    ['a 1 template', undefined],
    ['no such test', undefined],
  ])('%j → line %s', (name, line) => {
    expect(findTestLine(file, name)).toBe(line)
  })

  it('gives no line for a file it cannot read', () => {
    expect(findTestLine(join(tempDir(), 'missing.test.ts'), 'adds an item')).toBeUndefined()
  })
})
