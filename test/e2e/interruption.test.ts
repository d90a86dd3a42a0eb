import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { FactSchema, RateFileSchema } from '../../src/artifacts/schemas.js'
import { liveMembers, readArtifact, settle, startCli, tempDir, waitFor } from '../utils.js'

const lineCount = (path: string): number => (existsSync(path) ? readFileSync(path, 'utf8').split('\n').length - 1 : 0)
const waitForLines = (path: string, count: number) => waitFor(`${path} has ${count} lines`, () => lineCount(path) >= count)

/**
 * A trial command that passes twice, then, from its third call on, writes its process group (the
 * shell is the group leader, so `$$`) to running.pid and sleeps with a child: the marker that the
 * third trial is running.
 */
function blockingFromThirdCall(dir: string): string {
  const count = join(dir, 'count')
  return `n=$(cat ${count} 2>/dev/null || echo 0); n=$((n+1)); echo $n > ${count}; if [ $n -ge 3 ]; then echo $$ > ${join(dir, 'running.pid')}; sleep 60; fi`
}

// Up to 15 trials and CLI start-ups a test: 13 s at load 35.
describe('a run that does not end normally', { timeout: 60_000 }, () => {
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

    // Each trial appends a line to `ticks` before resting: five lines mean five trials have started.
    const ticks = join(dir, 'ticks')
    const measured = startCli(['measure', '--cmd', `echo x >> ${ticks}; sleep 0.05`, '--trials', '1000', '--out', out])
    const measuring = settle(measured)
    await waitForLines(ticks, 5)
    measured.kill('SIGINT')
    expect((await measuring).code).toBe(130)
    const rate = readArtifact(out, RateFileSchema)
    expect(rate).toMatchObject({ complete: false, requested_trials: 1000, failures: 0 })
    expect(rate.trials).toBeGreaterThanOrEqual(5)
    expect(rate.trials).toBeLessThan(1000)
  })

  it.skipIf(process.platform !== 'linux').each([
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const)('%s kills the running trial group at once and writes the finished trials, incomplete (exit %i)', async (signal, code) => {
    const dir = tempDir()
    const facts = join(dir, 'facts.jsonl')
    const out = join(dir, 'rate.json')
    const running = join(dir, 'running.pid')

    const collecting = startCli(['collect', '--cmd', blockingFromThirdCall(dir), '--trials', '10', '--out', facts])
    const collected = settle(collecting)
    await waitFor('the third trial is running', () => existsSync(running) && readFileSync(running, 'utf8').endsWith('\n'))
    collecting.kill(signal)
    const result = await collected
    expect(result.code).toBe(code)
    expect(result.stderr).toContain(`${signal}: killing the running trial`)
    expect(JSON.parse(result.stdout)).toMatchObject({ trials: 2, failures: 0, complete: false })
    const lines = readFileSync(facts, 'utf8').trimEnd().split('\n').map((line) => FactSchema.parse(JSON.parse(line)))
    expect(lines.map((l) => [l.trial, l.outcome])).toEqual([[1, 'passed'], [2, 'passed']])
    const group = Number(readFileSync(running, 'utf8'))
    await waitFor(`process group ${group} has ended`, () => liveMembers(group).length === 0)

    // The same through measure: rate.json holds the two finished trials.
    const counterDir = tempDir()
    const measuring = startCli(['measure', '--cmd', blockingFromThirdCall(counterDir), '--trials', '10', '--out', out])
    const measured = settle(measuring)
    await waitFor('the third trial is running', () => existsSync(join(counterDir, 'running.pid')))
    measuring.kill(signal)
    expect((await measured).code).toBe(code)
    expect(readArtifact(out, RateFileSchema)).toMatchObject({ trials: 2, failures: 0, complete: false, requested_trials: 10 })
  })

  // prlimit (util-linux) lowers the file limit of the running CLI to what it holds while trial 1 runs.
  const canLimit = process.platform === 'linux' && spawnSync('prlimit', ['--version']).status === 0
  it.skipIf(!canLimit)('a trial the system refuses to start (EMFILE) stops the run: exit 3, the finished trials kept and told', async () => {
    const dir = tempDir()
    const facts = join(dir, 'facts.jsonl')
    const started = join(dir, 'started')
    const go = join(dir, 'go')
    // Trial 1 waits for the test to say go, so the limit is set while it surely runs.
    const cmd = `touch ${started}; until [ -e ${go} ]; do sleep 0.02; done`
    const child = startCli(['collect', '--cmd', cmd, '--trials', '5', '--out', facts])
    const done = settle(child)
    await waitFor('trial 1 is running', () => existsSync(started))
    // Trial 1's pipes are open now; trial 2 needs new ones, which no longer fit.
    const open = readdirSync(`/proc/${child.pid}/fd`).length
    execFileSync('prlimit', ['--pid', String(child.pid), `--nofile=${open}`])
    writeFileSync(go, '')
    const result = await done
    expect(result.code).toBe(3)
    expect(JSON.parse(result.stdout)).toMatchObject({ trials: 1, failures: 0, complete: false })
    expect(result.stderr).toContain(`cannot start \`${cmd}\` (EMFILE): the system refused to start a trial, so it is not counted`)
    expect(result.stderr).toContain('measured before it stopped (collect): 1 trials, 0 failed')
    expect(readFileSync(facts, 'utf8').trimEnd().split('\n')).toHaveLength(1)
  })
})
