/**
 * Reports that leave attempts out: what a `repeat` command line says its runner's JUnit report will
 * not show. Pure; `flakeproof repeat` adds it to the run's notes.
 */

/**
 * What the command line says its reports will not show: retries a producer keeps out of its JUnit
 * report, so a test that passed on a retry reads as passed. pytest-rerunfailures' `--reruns` never
 * writes the failed attempts; Playwright's `--retries` writes them only with
 * PLAYWRIGHT_JUNIT_INCLUDE_RETRIES (or `includeRetries`). Undefined when nothing is hidden that the
 * command line shows.
 */
export function hiddenRetriesNote(command: string, env: Readonly<Record<string, string | undefined>>): string | undefined {
  if (/--reruns[= ]+[1-9]/.test(command)) {
    return 'pytest-rerunfailures (--reruns) leaves the failed attempts out of the JUnit report: a test that passed on a rerun reads as passed, so failures are undercounted; measure without it (-p no:rerunfailures)'
  }
  const includes = /PLAYWRIGHT_JUNIT_INCLUDE_RETRIES=(1|true)/.test(command) || ['1', 'true'].includes(env.PLAYWRIGHT_JUNIT_INCLUDE_RETRIES ?? '')
  if (/playwright\S*\s+test\b/.test(command) && /--retries[= ]+[1-9]/.test(command) && !includes) {
    return "Playwright's junit reporter leaves retries out unless PLAYWRIGHT_JUNIT_INCLUDE_RETRIES=1 (or includeRetries): a test that passed on a retry reads as passed, so failures are undercounted"
  }
  return undefined
}
