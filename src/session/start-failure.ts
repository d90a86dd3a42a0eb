import { stripAnsi } from '../core/ansi.js'

/**
 * Why a runner could not start (Vitest's `createVitest`, Jest's reading of its configs), in one line:
 * the message's first line; when that only announces the error (Vite's "Build failed with 1
 * error:"), the reason after it and where it is. Said as a usage error, where the runner's own CLI
 * prints a stack.
 */
export function startFailure(error: unknown): string {
  const lines = stripAnsi(String(error instanceof Error ? error.message : error))
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
  const [first = '', reason] = lines
  if (!first.endsWith(':') || reason === undefined) return first
  // rolldown draws the place in a frame below the reason (`╭─[ vitest.config.ts:2:22 ]`); esbuild starts the reason with it.
  const where = lines
    .slice(2)
    .map((line) => /([\w./@-]+:\d+:\d+)/.exec(line)?.[1])
    .find((place) => place !== undefined)
  return where === undefined || reason.includes(where) ? `${first} ${reason}` : `${first} ${reason} (${where})`
}
