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
