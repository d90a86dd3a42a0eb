import type { TrialSettings } from '../../pipeline/measure.js'
import type { FlagSpec } from '../spec.js'

/** Flags shared by the commands that run trials; defaults here mirror src/config/options.ts. */
export const FLAGS = {
  cmd: { name: 'cmd', value: '"<shell command>"', description: 'command to run through the shell (required)' },
  trials: { name: 'trials', value: '<n>', description: 'how many trials (required)' },
  gapMs: { name: 'gap-ms', value: '<ms>', description: 'rest before each trial, the first included (default 0)' },
  timeoutMs: { name: 'timeout-ms', value: '<ms>', description: 'kill a trial\'s process group after this long; it counts as failed (default: none)' },
  jobs: { name: 'jobs', value: '<n>', description: 'trials at once (default 1); parallel trials change timing' },
  confidence: { name: 'confidence', value: '<c>', description: 'confidence level in (0, 1) (default 0.95, z = 1.96)' },
} satisfies Record<string, FlagSpec>

/** `--out <file>`, described for one command. */
export function outFlag(what: string, required = true): FlagSpec {
  return { name: 'out', value: '<file>', description: `where to write ${what}${required ? ' (required)' : ''}`, output: 'file' }
}

/** The trial settings of a command's options (`trials` may come from elsewhere, as in `proof`). */
export function trialSettings(o: { cmd: string; 'gap-ms': number; 'timeout-ms'?: number | undefined; jobs: number }, trials: number): TrialSettings {
  return { command: o.cmd, trials, gapMs: o['gap-ms'], timeoutMs: o['timeout-ms'] ?? null, jobs: o.jobs }
}
