import { spawn } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { BENCHES, HELPERS, RATIO_LINE } from '../../bench/benches.mjs'
import { ROOT, settle } from '../utils.js'

/**
 * Every bench script in smoke mode (tiny sizes), so one that no longer runs, or no longer prints a
 * ratio it names, fails here instead of on the day its figures are wanted. The figures themselves
 * are not checked: timing belongs to the full benches on an idle machine (`npm run bench`).
 */
describe('the benches run (smoke mode) and print their ratios', () => {
  it('lists every bench script of bench/ (a new one is smoke-tested too)', () => {
    const scripts = readdirSync(join(ROOT, 'bench')).filter((name) => name.endsWith('.mjs') && !name.startsWith('_') && !HELPERS.includes(name))
    expect(scripts.sort()).toEqual(BENCHES.map((b) => b.script).sort())
  })

  it.each(BENCHES)('bench/$script', async ({ script, ratios, optional = [] }) => {
    const child = spawn(process.execPath, [join(ROOT, 'bench', script), '--smoke'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
    const { code, stdout, stderr } = await settle(child)
    expect(code, stderr.slice(-3000)).toBe(0)
    const printed = new Map(
      stdout
        .split('\n')
        .map((line) => RATIO_LINE.exec(line))
        .filter((m) => m !== null)
        .map((m) => [m[1], { value: Number(m[2]), target: m[3] ?? '' }]),
    )
    expect([...printed.keys()].filter((name) => !optional.includes(name)).sort()).toEqual([...ratios].sort())
    for (const [name, { value, target }] of printed) {
      expect(Number.isFinite(value), `${name}: ${value}`).toBe(true)
      expect(target === 'no target' || target.endsWith(': smoke'), `${name}: ${target}`).toBe(true)
    }
  }, 300_000)
})
