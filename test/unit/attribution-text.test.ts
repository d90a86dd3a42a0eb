import { describe, expect, it } from 'vitest'
import type { AttributionEntry } from '../../src/artifacts/attribution-schema.js'
import { attributionCell, attributionText } from '../../src/artifacts/attribution-text.js'

const base: Omit<AttributionEntry, 'text'> = {
  call: 'known-flake',
  basis: 'history',
  branch: 'main',
  runs: 30,
  failures: 6,
  rate: 0.2,
  // Wilson 95% for 6/30 (docs/contracts.md §2).
  ci_low: 0.09505,
  ci_high: 0.37306,
  predictive: 6.5 / 31,
  runs_to_tell: 10,
  signature: 'Error: STALE price cache on call <n>',
  signature_seen: true,
  unseen_share: 0,
  signatures: [{ signature: 'Error: STALE price cache on call <n>', count: 6, first_commit: null, last_commit: null }],
}

describe('the words of each call', () => {
  it.each<[string, Partial<Omit<AttributionEntry, 'text'>>, string, string]>([
    ['known flake', {}, 'known flake: 6/30 on main [9.5%, 37.3%], same signature `Error: STALE price cache on call <n>`', 'known-flake: 6/30 on main'],
    ['known flake, nothing to compare', { signature_seen: null, basis: 'committed-policy', branch: null }, 'known flake: 6/30 in the committed policy [9.5%, 37.3%], no signature in history to compare', 'known-flake: 6/30 in the committed policy'],
    [
      'a new way',
      { call: 'new-signature', signature: 'TypeError: x', signature_seen: false },
      'known flaky test failing a new way: 6/30 on main [9.5%, 37.3%], never with `TypeError: x` before (seen: `Error: STALE price cache on call <n>` 6×)',
      'new-signature: 6/30 on main',
    ],
    // 0.5/31 = 1.6%; Wilson 95% upper end for 0/30: 3.8416/33.8416 = 11.4%.
    ['new failure', { call: 'new-failure', failures: 0, rate: 0, ci_low: 0, ci_high: 0.11352, predictive: 0.5 / 31, signatures: [] }, 'new failure: 0/30 on main [0.0%, 11.4%]; a failure had a 1.6% chance ((0 + ½)/(30 + 1)), below 5.0%', 'new-failure: 0/30 on main, 1.6%'],
    // 3 clean runs, 10 would tell: 7 more.
    ['too little history', { call: 'no-history', runs: 3, failures: 0, branch: null }, 'no history to tell: 3/3 passed on other branches; 10 passing runs would tell (7 more)', 'no-history (3 runs; 10 would tell)'],
    ['never seen', { call: 'no-history', runs: 0, failures: 0, basis: 'none', branch: null }, 'no history to tell: no past run; 10 passing runs would tell', 'no-history (0 runs; 10 would tell)'],
  ])('%s', (_, change, text, cell) => {
    const entry = { ...base, ...change }
    expect(attributionText(entry, 0.95)).toBe(text)
    expect(attributionCell({ ...entry, text })).toBe(cell)
  })

  it('keeps a backtick in a signature from ending the code span', () => {
    expect(attributionText({ ...base, signature: 'panic: assertion `left == right` failed' }, 0.95)).toContain("`panic: assertion 'left == right' failed`")
  })
})
