#!/usr/bin/env node
import { fileURLToPath, pathToFileURL } from 'node:url'
import { cannotLoadLine } from './load-failure.js'
import { projectCopyBin } from './project-copy.js'

// The project's own flakeproof runs when this is another copy (src/cli/project-copy.ts): its bin
// reads the same process.argv.
const projectCopy = projectCopyBin(process.cwd(), fileURLToPath(import.meta.url))
if (projectCopy) await import(pathToFileURL(projectCopy).href)
else {
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
}
