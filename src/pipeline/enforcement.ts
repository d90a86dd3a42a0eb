import { basename } from 'node:path'
import type { CommittedPolicy, PolicyEntry, Quarantine } from '../artifacts/committed-policy-schema.js'
import type { ProofFile } from '../artifacts/schemas.js'
import type { TestProof } from '../artifacts/test-schemas.js'

/** What the enforcing runner saw of one test (docs/contracts.md §9). */
export interface EnforcedTest {
  id: string
  state: 'passed' | 'failed'
  /** Retries Vitest ran after the first attempt. */
  retries: number
  /** First line of each distinct error of its failed attempts, in order. */
  errors: string[]
}

export type EnforcedOutcome =
  | 'passed'
  /** Failed some attempts, passed within its retry budget. */
  | 'passed-within-budget'
  /** Failed its first attempt and every retry of its budget: it fails the run. */
  | 'failed-beyond-budget'
  /** Quarantined: it ran, and whatever it did does not fail the run. */
  | 'quarantined-passed'
  | 'quarantined-failed'

/** What an enforced run decided for one listed test: its outcome against its retry budget. */
export interface EnforcedResult {
  id: string
  outcome: EnforcedOutcome
  retryBudget: number
  retries: number
  errors: string[]
  /** Consecutive enforced runs failing beyond the budget, this one included. */
  failedRuns: number
}

/** A quarantined test of this run, with what it did and why it is in quarantine. */
export interface QuarantinedTest {
  id: string
  file: string
  /** Its name path (`describe > test`), as the policy lists it. */
  name: string
  outcome: 'passed' | 'failed'
  /** This run's errors (empty when it passed). */
  errors: string[]
  quarantine: Quarantine
  /** The measurement that listed it: failures of trials. */
  failures: number
  trials: number
  greenRunsRequired: number
}

export interface Enforcement {
  results: EnforcedResult[]
  /** Tests that failed beyond their budget on `quarantine_after` consecutive runs, not yet quarantined. */
  proposed: string[]
  /** The policy with this run recorded (failed_runs, new quarantines): written only when asked. */
  updated: CommittedPolicy
}

/** Vitest's `retry` for a test under enforcement: its budget when listed, none otherwise. */
export function retryOf(entry: PolicyEntry | undefined): number {
  return entry?.retry_budget ?? 0
}

/**
 * Judges an enforced run against the committed policy. A listed test that failed beyond its budget
 * counts one more consecutive failed run; at `quarantine_after` such runs it is proposed for
 * quarantine (and quarantined in `updated`, with this run's errors as evidence). A passing run resets
 * the count. Quarantined tests are reported, never counted, and stay until a proof clears them.
 * `today` is the UTC day (YYYY-MM-DD) written as `quarantine.since`.
 */
export function judgeEnforcedRun(policy: CommittedPolicy, observed: readonly EnforcedTest[], today: string): Enforcement {
  const tests: Record<string, PolicyEntry> = { ...policy.tests }
  const results: EnforcedResult[] = []
  const proposed: string[] = []
  for (const test of observed) {
    const entry = tests[test.id]
    if (!entry) continue
    const retryBudget = retryOf(entry)
    if (entry.quarantine) {
      const outcome = test.state === 'failed' ? 'failed' : 'passed'
      results.push({ id: test.id, outcome: `quarantined-${outcome}`, retryBudget, retries: test.retries, errors: test.errors, failedRuns: entry.failed_runs })
      continue
    }
    const failedRuns = test.state === 'failed' ? entry.failed_runs + 1 : 0
    const outcome = test.state === 'failed' ? 'failed-beyond-budget' : test.retries > 0 ? 'passed-within-budget' : 'passed'
    results.push({ id: test.id, outcome, retryBudget, retries: test.retries, errors: test.errors, failedRuns })
    const due = entry.quarantine_after !== null && failedRuns >= entry.quarantine_after
    if (due) proposed.push(test.id)
    tests[test.id] = {
      ...entry,
      failed_runs: failedRuns,
      quarantine: due
        ? {
            since: today,
            reason: `failed beyond its retry budget of ${retryBudget} in ${failedRuns} consecutive enforced run(s) (quarantine after ${entry.quarantine_after}; measured ${entry.failures} of ${entry.trials})`,
            evidence: test.errors,
          }
        : null,
    }
  }
  return { results, proposed, updated: { ...policy, tests } }
}

/**
 * The quarantined tests that ran in an enforced run, with this run's errors and the evidence that put
 * them in quarantine, in the policy's order: what a summary or an annotation shows of them.
 */
export function listQuarantined(policy: CommittedPolicy, results: readonly EnforcedResult[]): QuarantinedTest[] {
  return results.flatMap((r) => {
    const entry = policy.tests[r.id]
    if (!entry?.quarantine || (r.outcome !== 'quarantined-passed' && r.outcome !== 'quarantined-failed')) return []
    return [
      {
        id: r.id,
        file: entry.file,
        name: entry.name,
        outcome: r.outcome === 'quarantined-failed' ? 'failed' : 'passed',
        errors: r.errors,
        quarantine: entry.quarantine,
        failures: entry.failures,
        trials: entry.trials,
        greenRunsRequired: entry.green_runs_required,
      },
    ]
  })
}

/** A proof from the committed policy: each quarantined test and the green runs it must pass. */
export function proofRunsOf(policy: CommittedPolicy): Record<string, number> {
  return Object.fromEntries(Object.entries(policy.tests).filter(([, e]) => e.quarantine !== null).map(([id, e]) => [id, e.green_runs_required]))
}

/** What a proof did for one quarantined test of the committed policy: released, or why not. */
export interface Release {
  id: string
  released: boolean
  /** Why it stays quarantined (empty when released). */
  why: string
}

/**
 * Leaves quarantine — the only way out, docs/contracts.md §9 — for each quarantined test whose proof
 * ran at least the committed policy's `green_runs_required` with no failure, under conditions at
 * least as hard as its measurement's (not `weaker`, nothing `unreproduced`), whichever file the
 * proof's counts came from. Its count of failed runs starts again from 0. Every other quarantined
 * test stays, with the reason.
 */
export function releaseProven(policy: CommittedPolicy, proof: ProofFile): { updated: CommittedPolicy; releases: Release[] } {
  const tests = { ...policy.tests }
  const releases: Release[] = []
  for (const [id, entry] of Object.entries(policy.tests)) {
    if (!entry.quarantine) continue
    const why = whyStillQuarantined(entry, proof.tests?.[id], proof)
    releases.push({ id, released: why === '', why })
    if (why === '') tests[id] = { ...entry, quarantine: null, failed_runs: 0 }
  }
  return { updated: { ...policy, tests }, releases }
}

// --- internal ---

function whyStillQuarantined(entry: PolicyEntry, proven: TestProof | undefined, proof: ProofFile): string {
  if (!proven) return `not proved by this run (${basename(proof.required_from)} asks no proof of it)`
  if (proven.status !== 'ran') return `${proven.status} in this proof, so it ran no green run`
  if (proven.failures > 0) return `its proof failed ${proven.failures} of ${proven.trials} runs`
  if (proven.trials < entry.green_runs_required) return `${proven.trials} green run(s), and the committed policy requires ${entry.green_runs_required}`
  if (proof.unreproduced?.length) return `the proof did not replay the measurement's conditions (${proof.unreproduced.join('; ')})`
  if (proven.weaker?.length) return `the proof was weaker than its measurement: ${proven.weaker.map((w) => w.note).join('; ')}`
  return ''
}
