// --flaky-rounds K in one Vitest against K separate `vitest run` processes, on a 20-file suite
// (10 trivial tests each), with isolation on and off. Timed from outside by farm-bench, A and B
// alternating, so the figure is the paired ratio of medians; BENCH_K (10) and BENCH_RUNS (3) tune it.
//   A: flakeproof vitest --flaky-rounds K [--no-isolate]
//   B: K × vitest run [--no-isolate] (plain Vitest, no plugin: what a user would otherwise do)
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const root = join(import.meta.dirname, '..')
const K = Number(process.env.BENCH_K ?? 10)
const RUNS = Number(process.env.BENCH_RUNS ?? 3)
const project = mkdtempSync(join(tmpdir(), 'flakeproof-rounds-bench-'))
mkdirSync(join(project, 'tests'))
for (let f = 1; f <= 20; f++) {
  const tests = Array.from({ length: 10 }, (_, t) => `test('t${t + 1}', () => { expect(${f} + ${t}).toBe(${f + t}) })`).join('\n')
  writeFileSync(join(project, 'tests', `f${String(f).padStart(2, '0')}.test.ts`), `import { expect, test } from 'vitest'\n${tests}\n`)
}
writeFileSync(join(project, 'vitest.config.ts'), "import { defineConfig } from 'vitest/config'\nexport default defineConfig({ test: { include: ['tests/*.test.ts'] } })\n")
// Vitest resolves from the project: borrow this repository's node_modules.
spawnSync('ln', ['-s', join(root, 'node_modules'), join(project, 'node_modules')])

const vitest = join(root, 'node_modules/vitest/vitest.mjs')
const bin = join(root, 'dist/src/cli/bin.js')
for (const extra of [[], ['--no-isolate']]) {
  const a = ['sh', '-c', `cd ${project} && exec ${process.execPath} ${bin} vitest --flaky-rounds ${K} --flaky-out .fp ${extra.join(' ')} >/dev/null 2>&1`]
  const b = `sh -c 'cd ${project} && for i in $(seq ${K}); do ${process.execPath} ${vitest} run ${extra.join(' ')} >/dev/null 2>&1; done'`
  console.log(`\n== ${extra.length ? '--no-isolate' : 'isolate (default)'}: A = 1 process, ${K} rounds; B = ${K} processes ==`)
  const result = spawnSync('farm-bench', ['-n', String(RUNS), '--warmup', '0', '--timeout', '3000', '--vs', b, '--', ...a], { encoding: 'utf8' })
  console.log(result.stdout, result.stderr)
}
