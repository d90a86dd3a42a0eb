#!/usr/bin/env node
import { cannotLoadLine } from './load-failure.js'

// main.ts is loaded here, not imported: with few files allowed open (`ulimit -n 100`), Node's module
// loader fails before any of flakeproof runs; caught, it is one line (src/cli/load-failure.ts).
let runMain: ((argv: readonly string[]) => Promise<void>) | undefined
try {
  ;({ runMain } = await import('./main.js'))
} catch (error) {
  process.stderr.write(`${await cannotLoadLine(error)}\n`)
  process.exitCode = 3
}
if (runMain) await runMain(process.argv.slice(2))
