import { existsSync } from 'node:fs'
import type { ExecutionMode } from './html-executions.js'
import { forEachExecution } from './html-read.js'

/** One failing execution, as a JUnit `flakyFailure` or `failure` shows it. */
export interface FailingExecution {
  trial: number
  error: string
}

/** Per subject (test id, or the command): its failing executions, at most `cap`, and the time all its executions took. */
export interface ExecutionDigest {
  failing: FailingExecution[]
  elapsedMs: number
  executions: number
}

/**
 * Reads a facts file one chunk at a time and keeps, for each subject, the first `cap` failing
 * executions of the given modes and the time they all took: a facts.jsonl of a long run is never
 * held whole. A missing file gives an empty map (the XML then carries the counts alone).
 */
export function digestExecutions(path: string, commandSubject: string | null, modes: ReadonlySet<ExecutionMode>, cap: number): Map<string, ExecutionDigest> {
  const digests = new Map<string, ExecutionDigest>()
  if (!existsSync(path)) return digests
  forEachExecution(path, commandSubject, (execution) => {
    if (execution === 'skipped' || !modes.has(execution.mode)) return
    const digest = digests.get(execution.subject) ?? { failing: [], elapsedMs: 0, executions: 0 }
    digest.elapsedMs += execution.elapsedMs
    digest.executions++
    if (execution.failed && digest.failing.length < cap) digest.failing.push({ trial: execution.trial, error: execution.error ?? '' })
    digests.set(execution.subject, digest)
  })
  return digests
}
