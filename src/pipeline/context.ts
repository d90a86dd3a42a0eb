import type { RunControl } from '../runner/run-trials.js'

/** Live state of a batch of trials, for a progress line. */
export interface Progress {
  label: string
  done: number
  total: number
  failures: number
  elapsedMs: number
}

/** What a pipeline stage needs from its caller: how to stop, and where to say how it is going. */
export interface PipelineContext {
  control: RunControl
  onProgress: (progress: Progress) => void
  /** Stage lines and warnings, for a human on stderr. */
  log: (line: string) => void
}

/**
 * Lets the event loop run long enough for a signal's listener to have run: Node hears a signal on one
 * turn of the loop and calls its listeners on the next, so two turns. Work that never waits (a long
 * merge) calls this now and then, so Ctrl-C or SIGTERM can stop it.
 */
export async function giveWay(): Promise<void> {
  for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve))
}
