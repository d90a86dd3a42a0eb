import type { RoundCondition } from '../artifacts/conditions-schema.js'
import type { TestFact } from '../artifacts/test-schemas.js'
import { signatureOfText } from '../core/signature.js'
import type { ReportedTest } from './test-evidence.js'

/** Where a test's executions fall in the run: after `before` earlier ones, and in which whole-run round. */
export interface FactPlace {
  before: number
  round?: number
  condition?: RoundCondition
}

/**
 * facts.jsonl's lines for one test (docs/contracts.md §4): one per execution, numbered on from the
 * test's earlier executions (whole-run rounds keep counting), with the round and its condition.
 */
export function toFactLines(test: ReportedTest, place: FactPlace = { before: 0 }): TestFact[] {
  const { evidence } = test
  const { before, round, condition } = place
  return evidence.repetitions.map((repetition, index) => ({
    trial: before + index + 1,
    test_id: evidence.id,
    project: test.project,
    file: test.file,
    name: test.name,
    outcome: repetition.ok ? 'passed' : 'failed',
    elapsed_ms: repetition.elapsedMs,
    error: repetition.error ?? null,
    ...(repetition.stack === undefined ? {} : { stack: repetition.stack }),
    ...(repetition.attachments === undefined ? {} : { attachments: repetition.attachments }),
    stdout: repetition.stdout ?? '',
    stderr: repetition.stderr ?? '',
    repeat: index,
    order: evidence.order,
    previous_test: evidence.previousTest,
    worker: evidence.worker,
    seed: evidence.seed,
    gap_ms: repetition.gapMs,
    mode: repetition.mode,
    // The keys in TestFactSchema's order: a line so written is read back by the hand check (_fact-check.ts), not the schema.
    ...(round === undefined ? {} : { round }),
    ...(evidence.previousFile === undefined ? {} : { previous_file: evidence.previousFile }),
    ...(round === undefined ? {} : { condition: condition ?? 'base' }),
    ...(repetition.ok ? {} : { signature: repetition.signature ?? signatureOfText(repetition.error ?? '') }),
  }))
}
