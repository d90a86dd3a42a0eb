import { describe, expect, it } from 'vitest'
import { closest, didYouMean, editDistance } from '../../src/core/did-you-mean.js'
import { VITEST_FLAGS } from '../../src/config/vitest-options.js'

const FLAGS = Object.keys(VITEST_FLAGS)
const COMMANDS = ['measure', 'plan', 'collect', 'facts', 'observe', 'policy', 'proof', 'report', 'investigate', 'schema', 'repeat', 'ingest', 'merge', 'history', 'bisect', 'vitest', 'jest']

describe('editDistance (optimal string alignment)', () => {
  it.each([
    ['', '', 0],
    ['abc', '', 3], // three deletions
    ['kitten', 'sitting', 3], // k→s, e→i, +g (the textbook pair)
    ['repet', 'repeat', 1], // +a
    ['repaet', 'repeat', 1], // ae swapped
    ['mesure', 'measure', 1], // +a
    ['vitset', 'vitest', 1], // se swapped
    // Restricted Damerau: no substring is edited twice, so ca → abc is 3 here (2 in unrestricted Damerau).
    ['ca', 'abc', 3],
  ])('%j → %j is %d', (a, b, expected) => {
    expect(editDistance(a, b)).toBe(expected)
    expect(editDistance(b, a)).toBe(expected)
  })
})

describe('closest', () => {
  it.each([
    // One edit after the shared `--flaky-` prefix.
    ['--flaky-repet', FLAGS, '--flaky-repeat'],
    ['--flaky-obsrve', FLAGS, '--flaky-observe'],
    // `rep` is 3 edits from `repeat` (more than 6/3) but begins that name only.
    ['--flaky-rep', FLAGS, '--flaky-repeat'],
    // Without the prefix: `--repeat` vs `repeat` is 2 edits, within 6/3.
    ['--repeat', FLAGS, '--flaky-repeat'],
    // `x` is near nothing: no guess.
    ['--flaky-x', FLAGS, undefined],
    ['mesure', COMMANDS, 'measure'],
    ['vitset', COMMANDS, 'vitest'],
    ['jets', COMMANDS, 'jest'],
    ['frobnicate', COMMANDS, undefined],
    // `pr` begins one command alone (`policy` and `plan` begin `po`, `pl`), and is 2+ edits from every short name.
    ['pr', COMMANDS, 'proof'],
    // `re` begins `report` and `repeat`: two names, no guess.
    ['re', COMMANDS, undefined],
    // A tie (both 1 edit) goes to the name declared first.
    ['plam', ['plan', 'play'], 'plan'],
  ])('%j among %#', (given, names, expected) => {
    expect(closest(given, names)).toBe(expected)
  })

  it('says nothing for a name that is declared', () => {
    expect(didYouMean('merge', COMMANDS)).toBe('')
    expect(didYouMean('merg', COMMANDS, (n) => `\`${n}\``)).toBe('; did you mean `merge`?')
  })
})
