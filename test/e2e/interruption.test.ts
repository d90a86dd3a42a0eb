import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, it } from 'vitest'
import { FactSchema, RateFileSchema } from '../../src/artifacts/schemas.js'
import { readArtifact, settle, startCli, tempDir } from '../utils.js'

async function waitForLines(path: string, count: number): Promise<void> {
  const deadline = Date.now() + 30_000
  while (Date.now() < deadline) {
    if (existsSync(path) && readFileSync(path, 'utf8').split('\n').length > count) return
    await sleep(20)
  }
  throw new Error(`${path} never reached ${count} lines`)
}

describe('a run that does not end normally', () => {
  it('kill -9 mid-collect: every line of facts.jsonl parses and every finished trial is there', async () => {
    const dir = tempDir()
    const facts = join(dir, 'facts.jsonl')
    // Each trial prints 4 KiB, so a torn write would show as a line that does not parse.
    const cmd = `node -e "console.log('x'.repeat(4000))"`
    const child = startCli(['collect', '--cmd', cmd, '--trials', '1000', '--out', facts])
    const done = settle(child)
    await waitForLines(facts, 15)
    child.kill('SIGKILL')
    const result = await done
    expect(result.code).toBe(null)

    const text = readFileSync(facts, 'utf8')
    expect(text.endsWith('\n')).toBe(true)
    const lines = text.trimEnd().split('\n').map((line) => FactSchema.parse(JSON.parse(line)))
    expect(lines.length).toBeGreaterThanOrEqual(15)
    expect(lines.length).toBeLessThan(1000)
    expect(lines.map((l) => l.trial)).toEqual(Array.from({ length: lines.length }, (_, i) => i + 1))
    expect(lines.every((l) => l.stdout === `${'x'.repeat(4000)}\n`)).toBe(true)
  })

  it('Ctrl-C stops after the running trial and writes what was measured, marked incomplete', async () => {
    const dir = tempDir()
    const out = join(dir, 'rate.json')
    const facts = join(dir, 'facts.jsonl')
    const child = startCli(['collect', '--cmd', 'sleep 0.05', '--trials', '1000', '--out', facts])
    const done = settle(child)
    await waitForLines(facts, 5)
    child.kill('SIGINT')
    const result = await done
    expect(result.code).toBe(130)
    expect(result.stderr).toContain('stopping after the running trial')
    const summary = JSON.parse(result.stdout) as { trials: number; complete: boolean }
    expect(summary.complete).toBe(false)
    expect(summary.trials).toBeGreaterThanOrEqual(5)
    expect(readFileSync(facts, 'utf8').trimEnd().split('\n')).toHaveLength(summary.trials)

    const measured = startCli(['measure', '--cmd', 'sleep 0.05', '--trials', '1000', '--out', out])
    const measuring = settle(measured)
    await sleep(600)
    measured.kill('SIGINT')
    expect((await measuring).code).toBe(130)
    const rate = readArtifact(out, RateFileSchema)
    expect(rate).toMatchObject({ complete: false, requested_trials: 1000, failures: 0 })
    expect(rate.trials).toBeGreaterThan(0)
    expect(rate.trials).toBeLessThan(1000)
  })
})
