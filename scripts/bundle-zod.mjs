// The second step of `npm run build`: dist/src/_zod.js, as tsc emits it, re-exports the members of
// zod that flakeproof uses (src/_zod.ts); this puts those members, and only what they reach, in that
// one file. Node then loads one module of ~250 kB instead of zod's 95 modules and ~800 kB (every
// locale, the JSON Schema reader), about 40% of a CLI command's start-up above Node's own.
// The code is the installed zod's, which package.json pins exactly, so the types the published
// .d.ts files take from the zod dependency are those of the code that runs; its licence (MIT) heads
// the file, as the licence asks of a copy.
import { readFileSync, renameSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { build } from 'rolldown'

const target = join(import.meta.dirname, '../dist/src/_zod.js')
const zod = dirname(createRequire(import.meta.url).resolve('zod/package.json'))
const { version } = JSON.parse(readFileSync(join(zod, 'package.json'), 'utf8'))
const licence = readFileSync(join(zod, 'LICENSE'), 'utf8').trim()
const banner = `/*! The members of zod ${version} that flakeproof uses (src/_zod.ts), bundled by scripts/bundle-zod.mjs.\n\n${licence.replaceAll('*/', '* /')}\n*/`
const staging = `${target}.bundled`
await build({ input: target, platform: 'node', logLevel: 'warn', output: { file: staging, format: 'esm', banner } })
renameSync(staging, target)
