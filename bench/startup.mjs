// CLI start-up: `flakeproof plan --rate 0.2` (parse flags, compute, print JSON) against a bare
// `node -e 0`, paired (A B, B A, …), wall time of the whole process; target <= 2.5×. Beside it, the
// modules the command loads (ES modules and CommonJS ones), which do not depend on the machine's load.
//   node bench/startup.mjs [--smoke]      BENCH_PAIRS (30) tunes it
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { BIN, paired, printRatio, ROOT, scratch, size, spread, wallMs } from './_harness.mjs'

const PAIRS = size('BENCH_PAIRS', 30, 1)
const dir = scratch('startup')
const command = [BIN, 'plan', '--rate', '0.2']

function modulesLoaded() {
  const file = join(dir, 'modules.txt')
  wallMs({ args: ['--import', join(ROOT, 'bench/_count-modules.mjs'), ...command], env: { ...process.env, FLAKEPROOF_BENCH_MODULES: file } })
  const lines = readFileSync(file, 'utf8').trim().split('\n')
  const esm = lines.filter((l) => l.startsWith('esm ')).map((l) => l.slice(4))
  const ours = esm.filter((u) => u.includes('/dist/')).length
  const cjs = Number(lines.find((l) => l.startsWith('cjs '))?.slice(4))
  return { esm: esm.length, ours, cjs }
}

function measure(env) {
  return paired(() => wallMs({ args: command, env }), () => wallMs({ args: ['-e', '0'], env }), { pairs: PAIRS })
}

const m = modulesLoaded()
console.log(`CLI start-up: flakeproof ${command.slice(1).join(' ')} vs node -e 0, ${PAIRS} pairs`)
console.log(`modules loaded by the command: ${m.esm} ES modules (${m.ours} of flakeproof's, ${m.esm - m.ours} of packages), ${m.cjs} CommonJS`)
const asRun = measure(process.env)
printRatio('cli start-up', asRun.ratio, { at_most: 2.5 }, spread(asRun, ['flakeproof', 'node -e 0']))
if (process.env.NODE_EXTRA_CA_CERTS) {
  // Node reads and parses every certificate of that bundle at each start, before any script: it
  // lengthens both sides alike, so the ratio without it is shown too (no target: not how it was set).
  const { NODE_EXTRA_CA_CERTS: _, ...env } = process.env
  const bare = measure(env)
  printRatio('cli start-up without NODE_EXTRA_CA_CERTS', bare.ratio, undefined, spread(bare, ['flakeproof', 'node -e 0']))
}
