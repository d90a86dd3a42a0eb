import { ExecutionCollector, type ExecutionSummary, toExecutionLine } from './html-executions.js'
import { DETAILED_SUBJECTS } from './html-subjects.js'
import type { TestFact } from './test-schemas.js'

/**
 * Tests whose summaries a merge builds from the lines it writes: which tests report.html details is
 * known only once every test is merged, so the first ones are held and any other detailed test is
 * read back from facts.jsonl. A held summary is bounded (STRIP_MARKS marks, DURATION_POINTS points,
 * FAILURES_IN_FULL failures with capped texts), so holding this many keeps the merge's memory
 * O(tests) plus a constant.
 */
export const HELD_SUBJECTS = 3 * DETAILED_SUBJECTS

/**
 * report.html's per-test summaries from the lines a merge hands facts.jsonl, so the page need not
 * parse them again. Each equals what reading the test's written lines gives (html-read.ts): a line
 * read back is JSON.parse(JSON.stringify(line)), which has the same fields and values but -0, which
 * JSON writes as 0 (test/unit/html-held.test.ts renders both and compares the pages byte for byte).
 */
export class HeldSummaries {
  private readonly _held = new Map<string, ExecutionSummary>()
  /** Tests not held whatever the room: handed twice, or with a line the page would not read. */
  private readonly _refused = new Set<string>()
  private readonly _limit: number

  constructor(limit = HELD_SUBJECTS) {
    this._limit = limit
  }

  /** One test's lines, all of them, in the order they are written; a test handed twice is held by neither. */
  hold(lines: readonly TestFact[]): void {
    const [first] = lines
    if (first === undefined) return
    const id = first.test_id
    if (this._held.has(id)) {
      // Its lines are in two places of the file: read back, as the page reads any test it does not hold.
      this._held.delete(id)
      this._refused.add(id)
      return
    }
    if (this._refused.has(id) || this._held.size >= this._limit) return
    const collector = new ExecutionCollector([id])
    for (const line of lines) {
      const execution = toExecutionLine(line, null)
      if (execution === undefined) {
        // The page counts such a line as unreadable: left to the reader, which does.
        this._refused.add(id)
        return
      }
      if (execution === 'skipped') continue
      // JSON has no -0: the line read back has 0.
      if (Object.is(execution.elapsedMs, -0)) execution.elapsedMs = 0
      collector.add(execution)
    }
    this._held.set(id, collector.summarise().subjects.get(id) as ExecutionSummary)
  }

  get summaries(): ReadonlyMap<string, ExecutionSummary> {
    return this._held
  }
}
