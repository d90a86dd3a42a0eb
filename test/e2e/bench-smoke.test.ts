import { spawn } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { BENCHES, CALIBRATIONS, closingLines, HELPERS, RATIO_LINE } from '../../bench/benches.mjs'
import { type CliResult, ROOT, settle } from '../utils.js'

/** The benches bench/all.mjs is tried on: their own checks below read its run instead of starting them again. */
const THROUGH_ALL = ['measure-overhead.mjs', 'ingest-memory.mjs']
let allRun: Promise<CliResult> | undefined
/** bench/all.mjs --smoke on THROUGH_ALL, run once for every test that reads it. */
function runAll(): Promise<CliResult> {
  allRun ??= settle(spawn(process.execPath, [join(ROOT, 'bench/all.mjs'), '--smoke', ...THROUGH_ALL], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] }))
  return allRun
}

/** A bench's own output: its own run, or its part of bench/all.mjs's (from its `== bench/<script>` line to the next `== `). */
async function smokeRun(script: string): Promise<CliResult> {
  if (!THROUGH_ALL.includes(script)) return settle(spawn(process.execPath, [join(ROOT, 'bench', script), '--smoke'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] }))
  const all = await runAll()
  const from = all.stdout.indexOf(`\n== bench/${script} --smoke\n`)
  expect(from, all.stdout).toBeGreaterThanOrEqual(0)
  const to = all.stdout.indexOf('\n== ', from + 1)
  return { ...all, stdout: all.stdout.slice(from, to < 0 ? undefined : to) }
}

/**
 * Every bench script in smoke mode (tiny sizes), so one that no longer runs, or no longer prints a
 * ratio it names, fails here instead of on the day its figures are wanted. The figures themselves
 * are not checked: timing belongs to the full benches on an idle machine (`npm run bench`).
 */
// Each bench works in scratch folders of its own, and its figures are not judged here: they run at once.
describe.concurrent('the benches run (smoke mode) and print their ratios', () => {
  it('lists every bench script of bench/ (a new one is smoke-tested too)', () => {
    const scripts = readdirSync(join(ROOT, 'bench')).filter((name) => name.endsWith('.mjs') && !name.startsWith('_') && !HELPERS.includes(name))
    expect(scripts.sort()).toEqual([...BENCHES.map((b) => b.script), ...CALIBRATIONS].sort())
  })

  it.each(CALIBRATIONS)('bench/%s prints its calibration table at smoke sizes, writing nothing', async (script) => {
    const child = spawn(process.execPath, [join(ROOT, 'bench', script), '--smoke'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
    const { code, stdout, stderr } = await settle(child)
    expect(code, stderr.slice(-3000)).toBe(0)
    // A markdown table: a header row and its rule.
    expect(stdout).toMatch(/^\|.*\|\n\|[ -|]*---/m)
  }, 600_000)

  it.each([
    [
      'one met, one not, one without a target',
      ['ratio cli start-up: 1.940 (target <= 2.5: met) flakeproof 81 ms, node -e 0 42 ms', 'ratio merge vs read-and-parse floor: 4.400 (target <= 4: NOT MET) merge 2 486 ms', 'ratio rounds (isolated) vs K processes: 0.990 (no target) 10 × vitest run'],
      ['cli start-up: 1.940 (target <= 2.5: met)', 'merge vs read-and-parse floor: 4.400 (target <= 4: NOT MET)', 'rounds (isolated) vs K processes: 0.990 (no target)', '', '1 of 2 targets met; not met: merge vs read-and-parse floor'],
    ],
    ['all met', ['ratio jest in-process vs N processes: 9.700 (target >= 5: met) x'], ['jest in-process vs N processes: 9.700 (target >= 5: met)', '', '1 of 1 targets met']],
    ['smoke mode', ['ratio measure vs shell loop: 3.148 (target <= 1.1: smoke) x'], ['measure vs shell loop: 3.148 (target <= 1.1: smoke)', '', 'targets not judged: 1 (smoke mode: sizes that small measure nothing)']],
  ])('npm run bench closes with every ratio and the targets met: %s', (_, lines, expected) => {
    expect(closingLines(lines)).toEqual(expected)
  })

  it('bench/all.mjs runs the benches it is given and closes with their ratios', async () => {
    const { code, stdout, stderr } = await runAll()
    expect(code, stderr.slice(-3000)).toBe(0)
    const closing = stdout.slice(stdout.indexOf('== every ratio beside its target')).trimEnd().split('\n')
    expect(closing.map((line) => line.replace(/: [\d.]+ \(target/, ': N (target'))).toEqual([
      '== every ratio beside its target',
      'measure vs shell loop: N (target <= 1.1: smoke)',
      'ingest peak RSS vs 300 MB: N (target <= 1: smoke)',
      '',
      'targets not judged: 2 (smoke mode: sizes that small measure nothing)',
    ])
  }, 600_000)

  it.each(BENCHES)('bench/$script', async ({ script, ratios, optional = [] }) => {
    // all.mjs exits 0 only if every bench it ran did.
    const { code, stdout, stderr } = await smokeRun(script)
    expect(code, stderr.slice(-3000)).toBe(0)
    const printed = new Map(
      stdout
        .split('\n')
        .map((line) => RATIO_LINE.exec(line))
        .filter((m) => m !== null)
        .map((m) => [m[1] ?? '', { value: Number(m[2]), target: m[3] ?? '' }]),
    )
    expect([...printed.keys()].filter((name) => !optional.includes(name)).sort()).toEqual([...ratios].sort())
    for (const [name, { value, target }] of printed) {
      expect(Number.isFinite(value), `${name}: ${value}`).toBe(true)
      expect(target === 'no target' || target.endsWith(': smoke'), `${name}: ${target}`).toBe(true)
    }
  }, 600_000)
})
