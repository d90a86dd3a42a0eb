import type { ReportBundle } from '../../artifacts/bundle.js'
import { publishToGithub } from '../../pipeline/github.js'

/**
 * Under GitHub Actions, a command's step summary and annotations (docs/contracts.md §8). Annotations go
 * to stderr, each at the start of its own line as the runner requires, because stdout carries the
 * command's JSON result; test files in a rate.json are taken relative to the folder the command runs in.
 */
export function publishCommandResult(bundle: Partial<ReportBundle>): void {
  for (const line of publishToGithub(bundle, { env: process.env, rootOf: () => process.cwd() })) process.stderr.write(`${line}\n`)
}
