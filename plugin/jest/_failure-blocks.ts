import { createRequire } from 'node:module'

/**
 * Jest prints a failure block for every failed test result of a file, and each failed copy is one:
 * 40 failed copies are 40 blocks of the same failure. A test's first failed copy keeps its block,
 * the others are counted on one line (every one is in facts.jsonl), as Vitest shows one failure per
 * test. The blocks are Jest's own (jest-message-util's formatResultsErrors, as its runner makes them).
 */
interface FailedResult {
  fullName: string
  status: string
}
type FormatResultsErrors = (results: FailedResult[], config: unknown, options: { noStackTrace: boolean }, testPath?: string) => string | null

/** The file's failure text with one block per failing test; undefined when no test failed more than one copy. */
export function cappedFailures(messageUtil: string, results: readonly FailedResult[], config: unknown, noStackTrace: boolean, testPath: string): string | undefined {
  const failed = results.filter((r) => r.status === 'failed')
  const copies = new Map<string, number>()
  for (const r of failed) copies.set(r.fullName, (copies.get(r.fullName) ?? 0) + 1)
  if (copies.size === failed.length) return undefined
  const first = failed.filter((r, i) => failed.findIndex((o) => o.fullName === r.fullName) === i)
  const { formatResultsErrors } = createRequire(import.meta.url)(messageUtil) as { formatResultsErrors: FormatResultsErrors }
  const more = [...copies].filter(([, n]) => n > 1).map(([name, n]) => `  ● ${name}: ${n - 1} more failed cop${n === 2 ? 'y' : 'ies'}, not printed (every one is in facts.jsonl)`)
  return [formatResultsErrors(first, config, { noStackTrace }, testPath) ?? '', '', ...more, ''].join('\n')
}
