import { describe, expect, it } from 'vitest'
import { shellLines, table, terminalWidth, usageLines, wrap } from '../../src/core/text-layout.js'

describe('wrap', () => {
  it.each([
    // Broken at spaces: "the quick" is 9 of 10 columns, "brown fox" 9.
    [['the quick brown fox jumps', 10], ['the quick', 'brown fox', 'jumps']],
    // Indented continuation: the first line has 10 - 2 = 8 columns ("one two" is 7), the others 8 after the indent.
    [['one two three four', 10, 2], ['one two', '  three', '  four']],
    // Nothing before the first line (first = 0): "one two three" is 13 of 14.
    [['one two three four five', 14, 2, 0], ['one two three', '  four five']],
    // A word longer than a line is cut where the line ends: 15 a's in lines of 6.
    [['aaaaaaaaaaaaaaa', 6], ['aaaaaa', 'aaaaaa', 'aaa']],
    [['', 10], ['']],
  ] as const)('%j', (args, expected) => {
    const [text, width, indent, first] = args as unknown as [string, number, number?, number?]
    expect(wrap(text, width, indent, first)).toEqual(expected)
  })
})

describe('table', () => {
  it('wraps the text in its own column after the widest label', () => {
    // Labels up to min(28, (30 - 2 - 2) / 2 = 13) set the column: 8 ("--bb <n>"), so text starts at 2 + 8 + 2 = 12
    // and has 18 columns: "a longer text that" is exactly 18.
    expect(
      table(
        [
          { label: '--a', text: 'short' },
          { label: '--bb <n>', text: 'a longer text that wraps' },
          { label: '--a-very-long-label <x>', text: 'hi' },
        ],
        30,
      ),
    ).toEqual(['  --a       short', '  --bb <n>  a longer text that', '            wraps', '  --a-very-long-label <x>', '            hi'])
  })

  it('takes a shared label column (labelWidth) for tables read as one', () => {
    expect(table([{ label: '--a', text: 'x' }], 40, { labelWidth: 10 })).toEqual(['  --a         x'])
  })
})

describe('shellLines', () => {
  it('breaks between words, never inside quotes nor between a flag and its value, and continues with a backslash', () => {
    // "  npx flakeproof repeat --runs 20" is 33 columns; adding ' --junit "out/run {run}.xml"' and " \\"
    // would make 63 > 40; the second line (4 + 27) has no room for " -- pytest \\" (4 + 27 + 10 + 2 = 43).
    expect(shellLines('npx flakeproof repeat --runs 20 --junit "out/run {run}.xml" -- pytest', 40)).toEqual([
      '  npx flakeproof repeat --runs 20 \\',
      '    --junit "out/run {run}.xml" \\',
      '    -- pytest',
    ])
  })

  it('leaves a command that fits alone', () => {
    expect(shellLines('npx flakeproof vitest --flaky-proof', 80)).toEqual(['  npx flakeproof vitest --flaky-proof'])
  })
})

describe('usageLines', () => {
  it('keeps each bracketed part and each flag with its value whole', () => {
    // "Usage: flakeproof x --a <n> [--bb <m>]" is 38 of 40; the next part goes under it, indented 40 / 4 = 10.
    expect(usageLines('Usage: flakeproof x', '--a <n> [--bb <m>] (--c | --d) -- <command>', 40)).toEqual([
      'Usage: flakeproof x --a <n> [--bb <m>]',
      '          (--c | --d) -- <command>',
    ])
  })
})

describe('terminalWidth', () => {
  it.each([
    [{ isTTY: true, columns: 132 }, {}, 132],
    // Not a terminal (a pipe, a CI log): 80.
    [{ isTTY: false, columns: 132 }, {}, 80],
    [{}, {}, 80],
    // COLUMNS asks for a width either way.
    [{ isTTY: true, columns: 132 }, { COLUMNS: '100' }, 100],
    [{}, { COLUMNS: '120' }, 120],
    // Never below 40, and a COLUMNS that is not a number is ignored.
    [{ isTTY: true, columns: 20 }, {}, 40],
    [{}, { COLUMNS: 'wide' }, 80],
  ])('%j %j → %d', (stream, env, expected) => {
    expect(terminalWidth(stream, env)).toBe(expected)
  })
})
