import type { Repetition } from '../src/core/repetition.js'
import type { ReportedTest } from '../src/pipeline/test-evidence.js'

/** A test of `a.test.ts` whose repetitions fail where `pattern` has an 'x'; `cut` as if recovered after a crash. */
export function reportedTest(name: string, pattern: string, options: { mode?: Repetition['mode']; cut?: boolean } = {}): ReportedTest {
  return {
    project: '',
    file: 'a.test.ts',
    name,
    evidence: {
      id: `a.test.ts > ${name}`,
      path: [name],
      order: 1,
      previousTest: null,
      worker: '1',
      seed: null,
      repetitions: [...pattern].map((c) => ({ ok: c !== 'x', elapsedMs: 1, mode: options.mode ?? 'fast', gapMs: 0 })),
      ...(options.cut ? { cut: true as const } : {}),
    },
  }
}
