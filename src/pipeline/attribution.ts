import { existsSync } from 'node:fs'
import { join } from 'node:path'
import * as z from '../_zod.js'
import { ATTRIBUTION_FILE, type AttributionEntry, type AttributionFile, AttributionFileSchema } from '../artifacts/attribution-schema.js'
import { attributionText } from '../artifacts/attribution-text.js'
import { type CommittedPolicy, CommittedPolicySchema } from '../artifacts/committed-policy-schema.js'
import type { HistoryRecord, HistoryRun } from '../artifacts/history.js'
import { readHistoryFolder, readHistoryRunsIfAny } from '../artifacts/history.js'
import type { ReportBundle } from '../artifacts/bundle.js'
import { readFailedTests } from '../artifacts/failed-tests-read.js'
import { readJsonFile } from '../artifacts/read.js'
import { removeFiles, writeJsonAtomic } from '../artifacts/write.js'
import { callFailure, type PastRuns, runsToTell } from '../core/attribution.js'
import { complement, fractionFromNumber } from '../core/fraction.js'
import { describeRate } from '../core/rate.js'
import { normaliseMessage } from '../core/signature.js'
import { branchOf } from './history-record.js'
import { byCodeUnits } from '../core/text-order.js'

/**
 * Whose failure is it (docs/attribution.md): each failed test of a red run against its past runs,
 * for any runner. The history of the base branch is preferred (`--base`, else GITHUB_BASE_REF, else
 * main, else master); a test with no run there is judged on the runs of every other branch except
 * the one under test (its own past failures could be this change's), then on the committed policy's
 * measurement.
 */

/** One failed test of the red run. */
export interface FailedTest {
  id: string
  /** Its failure's signature (src/core/signature.ts); null when its runner gave none. */
  signature: string | null
}

export interface AttributionSettings {
  confidence: number
  /** `--base <branch>`. */
  base?: string | undefined
  env: Readonly<Record<string, string | undefined>>
  /** The branch of the red run (null when unknown). */
  currentBranch: string | null
  now: Date
  policy?: { path: string; file: CommittedPolicy } | undefined
}

/** attribution.json's content for `failed` against the history `runs` (and the policy, for tests history lacks). */
export function attributeFailures(failed: readonly FailedTest[], runs: readonly HistoryRun[], settings: AttributionSettings): AttributionFile {
  const base = baseOf(settings, runs)
  const byTest = pastByTest(runs)
  const alpha = complement(fractionFromNumber(settings.confidence))
  const tests: Record<string, AttributionEntry> = {}
  for (const { id, signature } of failed) {
    const past = pastOf(byTest.get(id) ?? [], base.branch, settings.currentBranch, settings.policy?.file.tests[id])
    // The policy keeps only first lines of messages: a signature holding one is that way of failing.
    const compared = past.basis === 'committed-policy' && signature !== null ? ([...past.signatures.keys()].find((message) => signature.includes(message)) ?? signature) : signature
    const call = callFailure(past, compared, alpha)
    const entry: Omit<AttributionEntry, 'text'> = {
      call: call.call,
      basis: past.basis,
      branch: past.branch,
      ...countsOf(past, settings.confidence),
      predictive: call.predictive,
      runs_to_tell: runsToTell(alpha),
      signature,
      signature_seen: call.signatureSeen,
      unseen_share: call.unseenShare,
      signatures: past.listed,
    }
    tests[id] = { ...entry, text: attributionText(entry, settings.confidence) }
  }
  return AttributionFileSchema.parse(
    { schema_version: 1, at: settings.now.toISOString(), confidence: settings.confidence, base, current_branch: settings.currentBranch, history_runs: runs.length, policy: settings.policy?.path ?? null, tests },
    z.ONE_PARSE,
  )
}

/** Where an everyday run's attribution reads from and writes to. */
export interface EverydayRun {
  /** The output folder: history in `<outDir>/history`, attribution.json written here. */
  outDir: string
  /** The project root: the committed policy's folder and git's. */
  root: string
  /** The committed policy, when one is configured or at the default place. */
  policyPath: string
  /** The policy as it was before the run, when the caller holds it (an enforced run may have rewritten the file since). */
  policy?: CommittedPolicy | undefined
  confidence: number
  base?: string | undefined
  env: Readonly<Record<string, string | undefined>>
  now: Date
}

/**
 * Attribution after an everyday (ordinary) run, before the run joins the history: written to
 * `<outDir>/attribution.json` when a test failed and there is a history or a committed policy to
 * judge it by. A run with nothing to attribute removes an earlier run's attribution.json, which
 * would otherwise speak of failures this run did not have. Returns what was written.
 */
export function attributeEverydayRun(failed: readonly FailedTest[], run: EverydayRun): AttributionFile | undefined {
  const runs = failed.length === 0 ? [] : readHistoryFolder(join(run.outDir, 'history')).runs
  const policy = failed.length === 0 ? undefined : (run.policy ?? (existsSync(run.policyPath) ? readJsonFile(run.policyPath, CommittedPolicySchema, 'policy', 'Fix or remove the committed policy.') : undefined))
  if (failed.length === 0 || (runs.length === 0 && !policy)) {
    removeFiles(run.outDir, [ATTRIBUTION_FILE])
    return undefined
  }
  const settings: AttributionSettings = {
    confidence: run.confidence,
    base: run.base,
    env: run.env,
    currentBranch: branchOf(run.env, run.root),
    now: run.now,
    ...(policy ? { policy: { path: run.policyPath, file: policy } } : {}),
  }
  return writeJsonAtomic(join(run.outDir, ATTRIBUTION_FILE), AttributionFileSchema, attributeFailures(failed, runs, settings))
}


/** Where `flakeproof report` looks for a test's past, and how it judges. */
export interface FolderAttribution {
  /** History files (a glob); no match is no history. */
  history: string
  /** The committed policy; read when it exists. */
  policyPath: string
  confidence: number
  base?: string | undefined
  env: Readonly<Record<string, string | undefined>>
  now: Date
}

/**
 * `flakeproof report` on a folder of test results (an ingested CI report, a Vitest run): the tests
 * that failed there, judged as a red run is, into `<dir>/attribution.json`. Undefined (and any
 * earlier attribution.json removed) in command mode, when nothing failed, or when there is neither
 * history nor a committed policy.
 */
export function attributeFolder(dir: string, bundle: Pick<ReportBundle, 'rate'>, settings: FolderAttribution): AttributionFile | undefined {
  const failed = bundle.rate.tests === undefined ? [] : readFailedTests(join(dir, 'facts.jsonl'))
  const runs = failed.length === 0 ? [] : readHistoryRunsIfAny([settings.history]).runs
  const policy = failed.length > 0 && existsSync(settings.policyPath) ? readJsonFile(settings.policyPath, CommittedPolicySchema, '--policy', 'Fix or remove the committed policy.') : undefined
  if (failed.length === 0 || (runs.length === 0 && !policy)) {
    removeFiles(dir, [ATTRIBUTION_FILE])
    return undefined
  }
  const file = attributeFailures(failed, runs, {
    confidence: settings.confidence,
    base: settings.base,
    env: settings.env,
    currentBranch: branchOf(settings.env, process.cwd()),
    now: settings.now,
    ...(policy ? { policy: { path: settings.policyPath, file: policy } } : {}),
  })
  return writeJsonAtomic(join(dir, ATTRIBUTION_FILE), AttributionFileSchema, file)
}

/** The terminal's lines: one per failed test, the call first. */
export function attributionLines(file: AttributionFile): { call: AttributionEntry['call']; line: string }[] {
  return Object.entries(file.tests).map(([id, entry]) => ({ call: entry.call, line: `  ${entry.call.padEnd(13)} ${id}: ${entry.text}` }))
}

/** The headline above them: how much history, and whose. */
export function attributionHeadline(file: AttributionFile): string {
  const failed = Object.keys(file.tests).length
  const base = file.base.branch === null ? 'no base branch in history' : `base branch ${file.base.branch} (${file.base.from})`
  const policy = file.policy === null ? '' : `, committed policy ${file.policy}`
  return `whose failure is it: ${failed} failed test(s) against ${file.history_runs} past run(s), ${base}${policy}`
}

// --- internal ---

export interface PastRecord {
  branch: string | null
  commit: string | null
  at: string
  failed: boolean
  signature: string | null
}

export interface Past extends PastRuns {
  basis: AttributionEntry['basis']
  branch: string | null
  listed: AttributionEntry['signatures']
}

/** The base branch: `--base`, else GITHUB_BASE_REF, else main or master when history has it. */
export function baseOf(settings: Pick<AttributionSettings, 'base' | 'env'>, runs: readonly HistoryRun[]): AttributionFile['base'] {
  if (settings.base !== undefined) return { branch: settings.base, from: '--base' }
  const fromCi = settings.env.GITHUB_BASE_REF
  if (fromCi) return { branch: fromCi, from: 'GITHUB_BASE_REF' }
  const branches = new Set(runs.flatMap((run) => run.records.map((r) => r.branch)))
  return { branch: branches.has('main') ? 'main' : branches.has('master') ? 'master' : null, from: 'default' }
}

/** Each test's past runs, oldest first: a history file is one run. */
export function pastByTest(runs: readonly HistoryRun[]): Map<string, PastRecord[]> {
  const byTest = new Map<string, PastRecord[]>()
  for (const run of runs) {
    for (const r of run.records) {
      const list = byTest.get(r.test_id) ?? []
      list.push(toPast(r))
      byTest.set(r.test_id, list)
    }
  }
  for (const list of byTest.values()) list.sort((a, b) => byCodeUnits(a.at, b.at))
  return byTest
}

function toPast(r: HistoryRecord): PastRecord {
  return { branch: r.branch, commit: r.commit, at: r.at, failed: r.outcome !== 'passed', signature: r.signature ?? null }
}

/**
 * The past runs a test is judged by: those of the base branch, else those of every branch but the
 * current one, else the committed policy's measurement.
 */
export function pastOf(records: readonly PastRecord[], base: string | null, current: string | null, policy: CommittedPolicy['tests'][string] | undefined): Past {
  const onBase = base === null ? [] : records.filter((r) => r.branch === base)
  const chosen = onBase.length > 0 ? onBase : records.filter((r) => current === null || r.branch !== current)
  if (chosen.length > 0) return { basis: 'history', branch: onBase.length > 0 ? base : null, ...tallyPast(chosen) }
  if (policy) {
    // The policy keeps the first line of each error message that put the test in quarantine: no name, no stack.
    const messages = (policy.quarantine?.evidence ?? []).map((line) => normaliseMessage(line))
    const signatures = new Map<string, number>()
    for (const message of messages) signatures.set(message, (signatures.get(message) ?? 0) + 1)
    const listed = [...signatures].map(([signature, count]) => ({ signature, count, first_commit: null, last_commit: null }))
    return { basis: 'committed-policy', branch: null, runs: policy.trials, failures: policy.failures, signatures, listed }
  }
  return { basis: 'none', branch: null, runs: 0, failures: 0, signatures: new Map(), listed: [] }
}

function tallyPast(records: readonly PastRecord[]): PastRuns & { listed: AttributionEntry['signatures'] } {
  const seen = new Map<string, { count: number; first: string | null; last: string | null; order: number }>()
  for (const r of records) {
    if (!r.failed || r.signature === null) continue
    const known = seen.get(r.signature)
    if (known) {
      known.count++
      known.last = r.commit
    } else seen.set(r.signature, { count: 1, first: r.commit, last: r.commit, order: seen.size })
  }
  const listed = [...seen]
    .sort(([, a], [, b]) => b.count - a.count || a.order - b.order)
    .slice(0, 10)
    .map(([signature, s]) => ({ signature, count: s.count, first_commit: s.first, last_commit: s.last }))
  return { runs: records.length, failures: records.filter((r) => r.failed).length, signatures: new Map([...seen].map(([s, v]) => [s, v.count])), listed }
}

function countsOf(past: PastRuns, confidence: number): Pick<AttributionEntry, 'runs' | 'failures' | 'rate' | 'ci_low' | 'ci_high'> {
  const { trials, failures, rate, ci_low, ci_high } = describeRate(past.failures, past.runs, confidence)
  return { runs: trials, failures, rate, ci_low, ci_high }
}
