/**
 * What a test runner's adapter can do, one word each. Every `--flaky-*` flag names the capability it
 * needs (VITEST_FLAGS), every adapter declares the ones it has (src/config/runners.ts), and a flag
 * the adapter lacks is refused before any test runs, with the sentence below saying what it needs.
 * Capabilities that no flag turns on (`github`, `history`) say what the session does at the end of
 * a run for that runner; `attribution` both (`--flaky-base`, and the attribution of a red everyday run).
 */
export const CAPABILITIES = {
  repeat: 'repeats each selected test in one run',
  gaps: 'rests between repetitions of a test (observing)',
  proof: 'repeats only the tests a proof needs, each its required times',
  seed: 'orders the tests inside each file by a seed of its own',
  rounds: 'runs the selection again as whole-run rounds with fresh module state',
  serial: 'runs a round on one worker, to compare with parallel rounds',
  load: 'runs rounds while the machine is kept busy',
  shuffle: 'reseeds the order of the tests every whole-run round',
  enforce: "gives each test the committed policy's retry budget and keeps quarantined failures from failing the run",
  committedPolicy: 'proves and updates the committed policy (flakeproof.policy.json)',
  budget: 'times a calibration run, then starts the measuring run in the same process',
  junit: 'writes the measurement as JUnit XML',
  github: "publishes GitHub Actions' step summary and annotations",
  history: 'records everyday runs in history',
  signature: "gives each failed execution its failure signature from the error's whole stack",
  attribution: "says whose failure each failed test of an everyday run is, from history and the committed policy",
} as const

export type Capability = keyof typeof CAPABILITIES
