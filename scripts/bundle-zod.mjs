// The second half of `npm run build`: dist/src/_zod.js, as tsc emits it, re-exports the members of
// zod that flakeproof uses (src/_zod.ts); this puts those members, and only what they reach, in that
// one file. Node then loads one module of ~250 kB instead of zod's 95 modules and ~800 kB (every
// locale, the JSON Schema reader), about 40% of a CLI command's start-up above Node's own.
// The types (dist/src/_zod.d.ts) still come from the zod package, a dependency as before.
import { renameSync } from 'node:fs'
import { join } from 'node:path'
import { build } from 'rolldown'

const target = join(import.meta.dirname, '../dist/src/_zod.js')
const staging = `${target}.bundled`
await build({ input: target, platform: 'node', logLevel: 'warn', output: { file: staging, format: 'esm' } })
renameSync(staging, target)
