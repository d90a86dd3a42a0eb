import { describe, expect, it } from 'vitest'
import { renderEnforcement } from '../../src/session/_enforce-text.js'
import { stripAnsi } from '../../src/core/ansi.js'
import type { EnforcedResult, QuarantinedTest } from '../../src/pipeline/enforcement.js'

const result = (id: string, outcome: EnforcedResult['outcome'], retries: number, failedRuns = 0): EnforcedResult => ({ id, outcome, retryBudget: 2, retries, errors: [], failedRuns })

const quarantined: QuarantinedTest = {
  id: 'q',
  file: 'a.test.ts',
  name: 'q',
  outcome: 'failed',
  errors: ['TOKEN: now'],
  quarantine: { since: '2026-11-01', reason: 'failed beyond its retry budget of 2 in 1 consecutive enforced run(s)', evidence: ['TOKEN: then'] },
  failures: 20,
  trials: 100,
  greenRunsRequired: 14,
}

// Colour depends on the terminal; the text is what is tested.
const render = (...args: Parameters<typeof renderEnforcement>): string[] => renderEnforcement(...args).map(stripAnsi)

describe('renderEnforcement (the terminal section of an enforced run)', () => {
  it('shows retries used, failures beyond the budget, quarantined tests with their evidence, and proposals', () => {
    const results = [result('p', 'passed', 0), result('r', 'passed-within-budget', 1), result('f', 'failed-beyond-budget', 2, 1), result('q', 'quarantined-failed', 2)]
    expect(render('flakeproof.policy.json', results, [quarantined], ['f'], false, 'npx vitest run -- --flaky-proof --flaky-update-policy')).toEqual([
      ' flakeproof enforcing flakeproof.policy.json: 4 listed test(s) ran, 1 of them quarantined',
      '  ↻ r  passed after 1 of its 2 retries',
      '  ✗ f  failed beyond its retry budget of 2 (1 consecutive run(s))',
      '  quarantined (ran and reported; cannot fail the run):',
      '  ◌ q  failed: TOKEN: now',
      '      since 2026-11-01: failed beyond its retry budget of 2 in 1 consecutive enforced run(s)',
      '      evidence: TOKEN: then',
      '      leaves quarantine after a proof of 14 green runs: npx vitest run -- --flaky-proof --flaky-update-policy',
      '  ! f  proposed for quarantine (write it with --flaky-update-policy)',
    ])
  })

  it('says a proposal was written when the policy is updated', () => {
    expect(render('p.json', [result('f', 'failed-beyond-budget', 2, 1)], [], ['f'], true, 'npx flakeproof vitest --flaky-proof --flaky-update-policy').at(-1)).toBe('  ! f  quarantined in p.json')
  })
})
