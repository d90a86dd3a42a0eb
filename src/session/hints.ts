import type { RunnerInfo } from '../config/runners.js'
import { type Hints, hintContextOf, hintsFor } from '../core/hints.js'

/** The commands a run suggests: its runner's syntax (src/core/hints.ts), in the form `command` started it. */
export function hintsOf(runner: RunnerInfo, command: string, version?: string | undefined): Hints {
  return hintsFor(hintContextOf({ command, tests: [], runner: { name: runner.name, version } }))
}
