import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type * as z from '../_zod.js'
import { flakeproofCommand } from '../core/hints.js'
import type { ReportBundle } from '../artifacts/bundle.js'
import { ConditionsFileSchema } from '../artifacts/conditions-schema.js'
import { renderHtmlReport } from '../artifacts/html.js'
import type { ExecutionSummary } from '../artifacts/html-executions.js'
import { type FactsRange, readExecutionSummaries } from '../artifacts/html-read.js'
import { renderReport } from '../artifacts/markdown.js'
import { readJsonFile } from '../artifacts/read.js'
import type { ReportLanguage } from '../artifacts/report-notes.js'
import {
  ObserverFileSchema,
  OnlyWhenFailFileSchema,
  PolicyFileSchema,
  ProofFileSchema,
  RateFileSchema,
  RunsNeededFileSchema,
  type SummaryFile,
  SummaryFileSchema,
} from '../artifacts/schemas.js'
import { writeJsonAtomic, writeTextAtomic } from '../artifacts/write.js'

export type { ReportLanguage } from '../artifacts/report-notes.js'

/**
 * summary.json, flaky_report.md and report.html (both in `lang`) for a bundle already in memory: no
 * JSON file is read back. The page's per-execution plots read facts.jsonl, bounded, because facts are streamed to disk
 * and never held whole in memory; `factRanges` (a merge knows where it wrote each test's lines) spares
 * the page the lines of the tests it does not detail, and `held` (summaries built as the lines were written) those of the tests it holds.
 */
export function writeReportFor(
  dir: string,
  bundle: ReportBundle,
  lang: ReportLanguage,
  factRanges?: ReadonlyMap<string, FactsRange>,
  held?: ReadonlyMap<string, ExecutionSummary>,
): SummaryFile {
  const summary = writeJsonAtomic(join(dir, 'summary.json'), SummaryFileSchema, buildSummary(bundle))
  writeTextAtomic(join(dir, 'flaky_report.md'), renderReport(bundle, lang))
  writeTextAtomic(join(dir, 'report.html'), renderHtmlReport(bundle, readExecutionSummaries(dir, bundle, process.cwd(), factRanges, held), lang))
  return summary
}

/** The bundle of a folder, as the last run left it; undefined when it holds no rate.json. */
export function readBundleIfAny(dir: string): ReportBundle | undefined {
  return existsSync(join(dir, 'rate.json')) ? readBundle(dir) : undefined
}

/** summary.json: the headline numbers of every file, null where a step has not run. */
export function buildSummary(bundle: ReportBundle): SummaryFile {
  const { rate, runsNeeded, onlyWhenFail, observer, policy, proof } = bundle
  return {
    schema_version: 1,
    command: rate.command,
    trials: rate.trials,
    failures: rate.failures,
    rate: rate.rate,
    ci_low: rate.ci_low,
    ci_high: rate.ci_high,
    verdict: rate.verdict,
    token: onlyWhenFail?.token ?? null,
    green_runs_required: policy?.green_runs_required ?? runsNeeded?.chosen.runs ?? null,
    retry_budget: policy?.retry_budget ?? null,
    quarantine_after: policy?.quarantine_after ?? null,
    observer_changed: observer?.changed ?? null,
    observer_p_value: observer?.p_value ?? null,
    proof_command: proof?.command ?? null,
    proof_trials: proof?.trials ?? null,
    proof_failures: proof?.failures ?? null,
    proof_passed: proof?.passed ?? null,
    ...(rate.tests === undefined ? {} : { tests: summariseTests(bundle) }),
  }
}

/** Test mode: the same headline numbers for each test, keyed by test id. */
function summariseTests({ rate, onlyWhenFail, observer, policy, proof }: ReportBundle): NonNullable<SummaryFile['tests']> {
  return Object.fromEntries(
    (rate.tests ?? []).map((test) => {
      const proven = proof?.tests?.[test.id]
      return [
        test.id,
        {
          trials: test.trials,
          failures: test.failures,
          rate: test.rate,
          ci_low: test.ci_low,
          ci_high: test.ci_high,
          verdict: test.verdict,
          token: onlyWhenFail?.tests?.[test.id]?.token ?? null,
          green_runs_required: policy?.tests?.[test.id]?.green_runs_required ?? null,
          observer_changed: observer?.tests?.[test.id]?.changed ?? null,
          proof_trials: proven?.status === 'ran' ? proven.trials : null,
          proof_failures: proven?.status === 'ran' ? proven.failures : null,
          proof_passed: proven?.status === 'ran' ? proven.passed : null,
        },
      ]
    }),
  )
}

// --- internal ---

const HINT = 'Re-run the step that writes it, or remove the file.'

/**
 * The bundle of a folder: rate.json required; the others are reported as "not measured" when
 * absent, and rejected when malformed.
 */
export function readBundle(dir: string): ReportBundle {
  const optional = <S extends z.ZodType>(name: string, schema: S): z.output<S> | undefined => {
    const path = join(dir, name)
    return existsSync(path) ? readJsonFile(path, schema, '--dir', HINT) : undefined
  }
  return {
    rate: readJsonFile(join(dir, 'rate.json'), RateFileSchema, '--dir', `Run \`${flakeproofCommand('measure --out <dir>/rate.json')}\` (or \`investigate\`) first.`),
    runsNeeded: optional('runs_needed.json', RunsNeededFileSchema),
    onlyWhenFail: optional('only_when_fail.json', OnlyWhenFailFileSchema),
    observer: optional('observer.json', ObserverFileSchema),
    policy: optional('policy.json', PolicyFileSchema),
    proof: optional('proof.json', ProofFileSchema),
    conditions: optional('conditions.json', ConditionsFileSchema),
  }
}
