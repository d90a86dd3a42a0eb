import { appendFileSync } from 'node:fs'
import { FlakeproofError } from '../errors.js'
import { reasonOf } from './_fs.js'

/**
 * Appends to the file GitHub Actions names in `$GITHUB_STEP_SUMMARY`: appended, never replaced, since
 * the step's other tools write there too, and GitHub renders the whole file as the step's summary.
 * @throws FlakeproofError `E_WRITE` when it cannot be written.
 */
export function appendStepSummary(path: string, markdown: string): void {
  try {
    appendFileSync(path, markdown.endsWith('\n') ? markdown : `${markdown}\n`)
  } catch (error) {
    throw new FlakeproofError(`GITHUB_STEP_SUMMARY ${path} could not be appended to (${reasonOf(error)}); check the variable names a writable file`, 'E_WRITE', { cause: error })
  }
}
