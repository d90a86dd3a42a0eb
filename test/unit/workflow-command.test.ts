import { describe, expect, it } from 'vitest'
import { escapeData, escapeLogJson, escapeLogLine, escapeProperty, formatAnnotation, logJson, logLine } from '../../src/core/workflow-command.js'

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

// The runner reads a command off a line that starts with `::` after white space (v2) or holds `##[`
// anywhere (v1), splitting its input at CR and LF (actions/runner src/Runner.Common/ActionCommand.cs).
describe('escapeLogLine: plain output a test name cannot turn into a workflow command', () => {
  it.each([
    ['  ✓ adds  3/3 runs', '  ✓ adds  3/3 runs'],
    ['rate 25.0%, interval 5.0% – 60.0%', 'rate 25.0%, interval 5.0% – 60.0%'],
    ['  ✓ evil\n::error::INJECTED  3/3 runs', '  ✓ evil%0A::error::INJECTED  3/3 runs'],
    ['a\r::add-mask::x', 'a%0D::add-mask::x'],
    ['::error::at the start', '%3A%3Aerror::at the start'],
    ['  \t::warning::after white space', '  \t%3A%3Awarning::after white space'],
    ['\u0085::notice::after NEL, white space to .NET', '\u0085%3A%3Anotice::after NEL, white space to .NET'],
    ['mid-line ##[add-mask]secret and ##[error]x', 'mid-line ##%5Badd-mask]secret and ##%5Berror]x'],
  ])('%j → %j', (raw, escaped) => {
    expect(escapeLogLine(raw)).toBe(escaped)
    expect(escapeLogLine(raw).split(/\r|\n/)).toHaveLength(1)
  })

  it('escapeLogJson keeps the JSON value and leaves no `##[`', () => {
    const value = { id: 'x ##[add-mask]y\n::error::z' }
    const json = escapeLogJson(JSON.stringify(value, null, 2))
    expect(json).not.toContain('##[')
    expect(JSON.parse(json)).toEqual(value)
  })

  it('logLine escapes under GITHUB_ACTIONS=true only', () => {
    expect(logLine('a\n::error::b', { GITHUB_ACTIONS: 'true' })).toBe('a%0A::error::b')
    expect(logLine('a\n::error::b', {})).toBe('a\n::error::b')
    expect(logJson('"##[x]"', { GITHUB_ACTIONS: 'true' })).toBe('"##\\u005bx]"')
  })
})
