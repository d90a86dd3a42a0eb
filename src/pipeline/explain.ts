import type { PolicyEntry } from '../artifacts/committed-policy-schema.js'
import type { HistoryRun } from '../artifacts/history.js'
import type { ProofFile, RateFile } from '../artifacts/schemas.js'
import { FlakeproofError } from '../errors.js'
import { type HintContext, hintContextOf, type Hints, hintsFor } from '../core/hints.js'
import { describeRate, type RateDescription } from '../core/rate.js'
import { shellWord } from '../core/shell-words.js'
import { byCodeUnits } from '../core/text-order.js'

/**
 * `flakeproof explain` (docs/attribution.md): one test's story from everything flakeproof kept of
 * it — its everyday runs by branch and over time, the signatures of its failures, its committed
 * policy entry, the last measurement and proof in the output folder — and the one command to run next.
 */

export interface ExplainSources {
  runs: readonly HistoryRun[]
  policy?: { path: string; tests: Readonly<Record<string, PolicyEntry>> } | undefined
  rate?: RateFile | undefined
  proof?: ProofFile | undefined
  /** Where rate.json and proof.json were read, as shown. */
  dir: string
  confidence: number
}

export interface Story {
  id: string
  /** The test as its runner names it: from the last measurement, the committed policy or its newest everyday run. */
  project: string
  file: string
  name: string
  history: (RateDescription & { first_at: string | null; last_at: string | null }) | null
  by_branch: { branch: string | null; runs: number; failures: number }[]
  over_time: { from_run: number; to_run: number; failures: number; first_at: string; last_at: string }[]
  signatures: { signature: string; count: number; first_commit: string | null; last_commit: string | null }[]
  policy: (PolicyEntry & { path: string }) | null
  measurement: (NonNullable<RateFile['tests']>[number] & { command: string; started_at: string }) | null
  proof: (NonNullable<ProofFile['tests']>[string] & { command: string }) | null
  next: string
}

/**
 * The test `query` names: an exact id, else the only id containing it (case-insensitive).
 * @throws FlakeproofError `E_USAGE` when none or several match (the matches listed).
 */
export function findTest(query: string, sources: ExplainSources): string {
  const ids = new Set<string>([
    ...sources.runs.flatMap((run) => run.records.map((r) => r.test_id)),
    ...Object.keys(sources.policy?.tests ?? {}),
    ...(sources.rate?.tests ?? []).map((t) => t.id),
  ])
  if (ids.has(query)) return query
  const lower = query.toLowerCase()
  const matches = [...ids].filter((id) => id.toLowerCase().includes(lower)).sort()
  if (matches.length === 1) return matches[0] as string
  if (matches.length === 0) {
    throw new FlakeproofError(`no test known to history, the committed policy or ${sources.dir}/rate.json matches ${JSON.stringify(query)}; pass part of a test id, e.g. "reads the cached price"`, 'E_USAGE')
  }
  const shown = matches.slice(0, 20).map((id) => `\n  ${id}`).join('')
  const more = matches.length > 20 ? `\n  … and ${matches.length - 20} more` : ''
  throw new FlakeproofError(`${matches.length} tests match ${JSON.stringify(query)}; give more of the id:${shown}${more}`, 'E_USAGE')
}

/** The story of test `id`. */
export function explainTest(id: string, sources: ExplainSources): Story {
  const records = sources.runs
    .flatMap((run) => run.records.filter((r) => r.test_id === id))
    .sort((a, b) => byCodeUnits(a.at, b.at))
  const failed = records.filter((r) => r.outcome !== 'passed')
  const branches = new Map<string | null, { runs: number; failures: number }>()
  for (const r of records) {
    const b = branches.get(r.branch) ?? { runs: 0, failures: 0 }
    b.runs++
    if (r.outcome !== 'passed') b.failures++
    branches.set(r.branch, b)
  }
  const signatures = new Map<string, Story['signatures'][number]>()
  for (const r of failed) {
    if (r.signature === undefined) continue
    const known = signatures.get(r.signature)
    if (known) {
      known.count++
      known.last_commit = r.commit
    } else signatures.set(r.signature, { signature: r.signature, count: 1, first_commit: r.commit, last_commit: r.commit })
  }
  // Five stretches of its runs, oldest first: whether it fails more now than it did.
  const size = Math.max(1, Math.ceil(records.length / 5))
  const overTime = []
  for (let from = 0; from < records.length; from += size) {
    const part = records.slice(from, from + size)
    overTime.push({ from_run: from + 1, to_run: from + part.length, failures: part.filter((r) => r.outcome !== 'passed').length, first_at: part[0]?.at ?? '', last_at: part.at(-1)?.at ?? '' })
  }
  const entry = sources.policy?.tests[id]
  // An everyday run's rate.json (one execution per test) is no measurement: history already has that run.
  const measured = sources.rate?.tests?.find((t) => t.id === id && t.trials > 1)
  const proven = sources.proof?.tests?.[id]
  const named = sources.rate?.tests?.find((t) => t.id === id) ?? entry ?? records.at(-1)
  const story: Omit<Story, 'next'> = {
    id,
    project: named?.project ?? '',
    file: named?.file ?? '',
    name: named?.name ?? '',
    history:
      records.length === 0
        ? null
        : { ...describeRate(failed.length, records.length, sources.confidence), first_at: records[0]?.at ?? null, last_at: records.at(-1)?.at ?? null },
    by_branch: [...branches].map(([branch, b]) => ({ branch, ...b })).sort((a, b) => b.runs - a.runs),
    over_time: overTime,
    signatures: [...signatures.values()].sort((a, b) => b.count - a.count),
    policy: entry && sources.policy ? { ...entry, path: sources.policy.path } : null,
    measurement: measured && sources.rate ? { ...measured, command: sources.rate.command, started_at: sources.rate.started_at } : null,
    proof: proven && sources.proof ? { ...proven, command: sources.proof.command } : null,
  }
  return { ...story, next: nextStep(story, sources.dir, hintsFor(hintContextFor(id, sources))) }
}

/**
 * Who runs the test, for the next command's syntax (src/core/hints.ts): a measurement of it, or
 * reports, say it as they were run; an everyday run (the reporter alone in the config, where the
 * plugin's flags would do nothing) says only its runner, whose wrapper then measures and proves:
 * the newest of its history records that names one, else rate.json's. Records written before they
 * named a runner are Vitest's, the only runner that kept history then.
 */
export function hintContextFor(id: string, sources: Pick<ExplainSources, 'runs' | 'rate'>): HintContext {
  const rate = sources.rate
  const inRate = rate?.tests?.find((t) => t.id === id)
  if (rate && inRate && (inRate.trials > 1 || rate.reports !== undefined)) return hintContextOf(rate)
  const recorded = sources.runs
    .flatMap((run) => run.records.filter((r) => r.test_id === id && r.runner !== undefined))
    .sort((a, b) => byCodeUnits(a.at, b.at))
    .at(-1)?.runner
  const named = recorded ?? (inRate ? rate?.runner?.name : undefined)
  if (named === 'jest') return { runner: 'jest', version: rate?.runner?.name === 'jest' ? rate.runner.version : undefined }
  return { runner: 'vitest', form: 'wrapper' }
}

/** What to run next, one command in the test's runner's syntax: measure what is only known from history, prove what was measured, or nothing. */
function nextStep(story: Omit<Story, 'next'>, dir: string, hints: Hints): string {
  const { measurement, proof, policy, history } = story
  const run = (flags: string): string => hints.againFor(story, flags) ?? hints.again(flags)
  const outDir = `--flaky-out ${shellWord(dir)}`
  if (policy?.quarantine) return `fix it, then prove the fix: ${run(`--flaky-proof --flaky-policy ${shellWord(policy.path)}`)}`
  if (proof && !proof.passed) return `the last proof failed (${proof.failures} of ${proof.trials} runs): fix it, then ${run(`--flaky-proof ${outDir}`)}`
  if (measurement && measurement.failures > 0) return `fix it, then prove the fix: ${run(`--flaky-proof ${outDir}`)}`
  if (history && history.failures > 0) return `measure it where it fails, with the signature history shows: ${run('--flaky-repeat 200')}`
  if (measurement) return `nothing to do: it passed all ${measurement.trials} repetitions of the last measurement`
  return history ? `nothing to do: it never failed in ${history.trials} everyday run(s)` : `measure it: ${run('--flaky-repeat 200')}`
}

/** The story as lines for the terminal. */
export function storyLines(story: Story): string[] {
  const pct = (x: number): string => `${(x * 100).toFixed(1)}%`
  const short = (commit: string | null): string => (commit === null ? 'unknown commit' : commit.slice(0, 12))
  const lines = [story.id]
  const h = story.history
  if (h) {
    lines.push(`  history: failed ${h.failures} of ${h.trials} everyday runs, ${pct(h.rate)} [${pct(h.ci_low)}, ${pct(h.ci_high)}], ${h.first_at?.slice(0, 10)} to ${h.last_at?.slice(0, 10)}`)
    lines.push(`    by branch: ${story.by_branch.map((b) => `${b.branch ?? '(no branch)'} ${b.failures}/${b.runs}`).join(', ')}`)
    lines.push(`    over time: ${story.over_time.map((t) => `runs ${t.from_run}–${t.to_run}: ${t.failures} failed`).join('; ')}`)
  } else lines.push('  history: no everyday run recorded it')
  if (story.signatures.length > 0) {
    lines.push('  signatures:')
    for (const s of story.signatures) lines.push(`    ${s.count}×  ${s.signature}  (first ${short(s.first_commit)}, last ${short(s.last_commit)})`)
  } else if (h && h.failures > 0) lines.push('  signatures: none recorded (history written before signatures were kept)')
  const p = story.policy
  if (p) {
    const quarantine = p.quarantine ? `quarantined since ${p.quarantine.since}: ${p.quarantine.reason}` : 'not quarantined'
    lines.push(`  policy (${p.path}): ${p.verdict}, ${p.failures}/${p.trials}, retry budget ${p.retry_budget ?? 'none'}, ${p.green_runs_required} green runs to prove a fix, ${quarantine}`)
  } else lines.push('  policy: not in a committed policy')
  const m = story.measurement
  lines.push(m ? `  last measurement (${m.started_at.slice(0, 19)}, ${m.command}): ${m.verdict}, ${m.failures}/${m.trials}, ${pct(m.rate)} [${pct(m.ci_low)}, ${pct(m.ci_high)}]` : '  last measurement: none in the output folder')
  const pr = story.proof
  lines.push(pr ? `  last proof (${pr.command}): ${pr.passed ? 'passed' : 'FAILED'}, ${pr.status}, ${pr.failures} failed of ${pr.trials}/${pr.required}` : '  last proof: none')
  lines.push(`  next: ${story.next}`)
  return lines
}
