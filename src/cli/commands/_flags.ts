import type { TrialSettings } from '../../pipeline/measure.js'

/** The trial settings of a command's options (`trials` may come from elsewhere, as in `proof`). */
export function trialSettings(o: { cmd: string; 'gap-ms': number; 'timeout-ms'?: number | undefined; jobs: number }, trials: number): TrialSettings {
  return { command: o.cmd, trials, gapMs: o['gap-ms'], timeoutMs: o['timeout-ms'] ?? null, jobs: o.jobs }
}
