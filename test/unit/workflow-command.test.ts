import { describe, expect, it } from 'vitest'
import { escapeData, escapeProperty, formatAnnotation } from '../../src/core/workflow-command.js'

// Expected escapes from actions/toolkit packages/core/src/command.ts (escapeData: % \r \n;
// escapeProperty: those and : ,) and GitHub's "Workflow commands" page (%25 %0D %0A %3A %2C).
describe('workflow-command escaping', () => {
  it.each([
    ['plain', 'plain', 'plain'],
    ['100%', '100%25', '100%25'],
    ['a\nb', 'a%0Ab', 'a%0Ab'],
    ['a\r\nb', 'a%0D%0Ab', 'a%0D%0Ab'],
    ['x: y, z', 'x: y, z', 'x%3A y%2C z'],
    // % first: an escape already in the text must not be read back as one.
    ['%0A', '%250A', '%250A'],
    ['::error::', '::error::', '%3A%3Aerror%3A%3A'],
  ])('%j → data %j, property %j', (raw, data, property) => {
    expect(escapeData(raw)).toBe(data)
    expect(escapeProperty(raw)).toBe(property)
  })
})

describe('formatAnnotation', () => {
  it.each([
    [{ level: 'warning' as const, message: 'm' }, '::warning::m'],
    [{ level: 'error' as const, message: 'two\nlines', file: 'a/b.test.ts', line: 12 }, '::error file=a/b.test.ts,line=12::two%0Alines'],
    [
      { level: 'warning' as const, message: 'rate 20%', title: 'flaky: 100%, a: b', file: 'dir,with:odd/x.ts', line: 3 },
      '::warning file=dir%2Cwith%3Aodd/x.ts,line=3,title=flaky%3A 100%25%2C a%3A b::rate 20%25',
    ],
  ])('%j', (annotation, line) => {
    expect(formatAnnotation(annotation)).toBe(line)
  })

  it('never lets a message end the command early: the output is one line', () => {
    const line = formatAnnotation({ level: 'error', message: 'a\nb\r\nc', title: 't\nu' })
    expect(line.split(/\r|\n/)).toHaveLength(1)
  })
})
