/**
 * The step a report suggests next when its per-test numbers came from another runner's reports
 * (`repeat`, `ingest`): the Vitest plugin's flags do not apply there, command mode's steps do, with
 * the test command as the subject. `flags` are the Vitest flags the report would otherwise suggest.
 */
export function nextStepForReports(flags: string): string {
  if (flags.includes('--flaky-proof')) return 'flakeproof proof --cmd "<fixed test command>" --policy policy.json'
  if (flags.includes('--flaky-observe')) return 'flakeproof observe --cmd "<test command>" --slow-trials 20 --gap-ms 2000'
  return 'flakeproof repeat --runs 200 --junit "<path with {run}>" -- <test command>'
}
