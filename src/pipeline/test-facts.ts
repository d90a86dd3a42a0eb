import type { TestFact } from '../artifacts/test-schemas.js'
import type { ReportedTest } from './test-evidence.js'

/** facts.jsonl's lines for one test (docs/contracts.md §4): one per execution, numbered from 1. */
export function toFactLines(test: ReportedTest): TestFact[] {
  const { evidence } = test
  return evidence.repetitions.map((repetition, index) => ({
    trial: index + 1,
    test_id: evidence.id,
    project: test.project,
    file: test.file,
    name: test.name,
    outcome: repetition.ok ? 'passed' : 'failed',
    elapsed_ms: repetition.elapsedMs,
    error: repetition.error ?? null,
    stdout: repetition.stdout ?? '',
    stderr: repetition.stderr ?? '',
    repeat: index,
    order: evidence.order,
    previous_test: evidence.previousTest,
    worker: evidence.worker,
    seed: evidence.seed,
    gap_ms: repetition.gapMs,
    mode: repetition.mode,
  }))
}
