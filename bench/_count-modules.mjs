// `FLAKEPROOF_BENCH_MODULES=<file> node --import ./bench/_count-modules.mjs …`: writes to <file> one
// line per ES module loaded (`esm <url>`, from the loader's thread) and, at exit, one line `cjs <n>`:
// the CommonJS modules required. A start-up figure that does not depend on the machine's load.
import { appendFileSync } from 'node:fs'
import { createRequire, register } from 'node:module'
import { isMainThread } from 'node:worker_threads'

const out = process.env.FLAKEPROOF_BENCH_MODULES

/** The load hook (on the loader's thread): one line per ES module, built-ins excluded. */
export async function load(url, context, next) {
  if (out && !url.startsWith('node:')) appendFileSync(out, `esm ${url}\n`)
  return next(url, context)
}

if (isMainThread && out) {
  register(import.meta.url)
  process.on('exit', () => {
    appendFileSync(out, `cjs ${Object.keys(createRequire(import.meta.url)('node:module')._cache).length}\n`)
  })
}
