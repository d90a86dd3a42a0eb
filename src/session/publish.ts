import { join } from 'node:path'
import type { AttributionFile } from '../artifacts/attribution-schema.js'
import type { RunnerInfo } from '../config/runners.js'
import { publishToGithub, writeJunit, writeProofJunit } from '../pipeline/github.js'
import type { TestRunResult } from '../pipeline/test-run.js'

export interface PublishOptions {
  runner: RunnerInfo
  /** A red everyday run's attribution (docs/attribution.md): a column of the step summary, the annotations' words. */
  attribution?: AttributionFile | undefined
  /** The root a project's test files are relative to. */
  rootOf: (project: string) => string
  /** Where the runner said each test is, by id. */
  locations: ReadonlyMap<string, { file: string; line?: number | undefined }>
  /** The JUnit file to write (absolute), when asked for. */
  junit: string | undefined
  /** Runs a step whose failure of flakeproof's own is said and skipped (the session's degradeGracefully). */
  degrade: <T>(run: () => T) => T | undefined
}

/**
 * The end of a run for CI (docs/contracts.md §8), for a runner whose adapter has the capability:
 * under GitHub Actions the step summary and annotations (returned as lines, for the runner's log),
 * and with `junit` the JUnit file — the measurement's, or a proof's beside the last measurement.
 */
export function publishRun(result: TestRunResult, options: PublishOptions): string[] {
  const bundle = result.bundle ? { ...result.bundle, attribution: options.attribution } : result.proof ? { proof: result.proof } : undefined
  if (!bundle) return []
  const { runner, junit, degrade } = options
  const github = { env: process.env, rootOf: (test: { project: string }) => options.rootOf(test.project), locations: options.locations }
  const lines = runner.can.github ? (degrade(() => publishToGithub(bundle, github)) ?? []) : []
  if (!junit || !runner.can.junit) return lines
  const measured = result.proof ? undefined : result.bundle
  if (measured) degrade(() => writeJunit(junit, measured, join(result.dir, 'facts.jsonl')))
  else degrade(() => writeProofJunit(junit, bundle, join(result.dir, 'proof_facts.jsonl')))
  return lines
}
