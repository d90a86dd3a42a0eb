import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, it } from 'vitest'
import { FactSchema } from '../../src/artifacts/schemas.js'
import { BIN, labCommand, runCli, settle, startCli, tempDir } from '../utils.js'

/** A command that leaves `ran` in `dir` if any trial starts. */
const marksRun = (dir: string): string => `touch ${join(dir, 'ran')}`

/** A pid that cannot be alive: above the largest pid_max Linux allows (2^22). */
const DEAD_PID = 2 ** 22 + 1

/** The built CLI under `ulimit -f <blocks>`: writes past the limit fail with EFBIG (Node ignores SIGXFSZ). */
function runCliWithFileLimit(blocks: number, args: string[]) {
  const quoted = [process.execPath, BIN, ...args].map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(' ')
  return settle(spawn('/bin/sh', ['-c', `ulimit -f ${blocks} && exec ${quoted}`], { stdio: ['ignore', 'pipe', 'pipe'] }))
}

describe('where flakeproof writes', () => {
  const dir = tempDir()
  const target = join(dir, 'target.json')
  writeFileSync(target, 'keep\n')

  // collect/measure --out <a folder | a link | a pipe>: in hostile-output-safety.test.ts, with the exact line and the files around hashed.

  it('investigate refuses an --out-dir holding one of its files as a symlink, before any trial', async () => {
    const outDir = join(dir, 'investigation')
    mkdirSync(outDir)
    symlinkSync(target, join(outDir, 'policy.json'))
    writeFileSync(join(outDir, 'rate.json'), '{}')
    const state = tempDir()
    const result = await runCli(['investigate', '--cmd', labCommand(state), '--fixed-cmd', 'true', '--out-dir', outDir])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(`${join(outDir, 'policy.json')} is a symbolic link`)
    expect(existsSync(join(state, 'state.json'))).toBe(false)
    // Nothing was cleared either: all files are checked before any is removed.
    expect(readFileSync(join(outDir, 'rate.json'), 'utf8')).toBe('{}')
    expect(readFileSync(target, 'utf8')).toBe('keep\n')
  })

  it('writes a .gitignore of * into a folder it creates, and none into one that exists', async () => {
    const fresh = join(tempDir(), 'a', 'results')
    expect((await runCli(['measure', '--cmd', 'true', '--trials', '1', '--out', join(fresh, 'rate.json')])).code).toBe(0)
    expect(readFileSync(join(fresh, '.gitignore'), 'utf8')).toMatch(/^\*$/m)
    expect(readdirSync(fresh).sort()).toEqual(['.gitignore', 'rate.json'])

    const existing = tempDir()
    expect((await runCli(['measure', '--cmd', 'true', '--trials', '1', '--out', join(existing, 'rate.json')])).code).toBe(0)
    expect(readdirSync(existing)).toEqual(['rate.json'])
  })

  it('runs one at a time per output file: a second run exits 2 naming the first one’s pid', async () => {
    const folder = tempDir()
    const running = join(folder, 'running')
    const first = startCli(['collect', '--cmd', `touch ${running}; sleep 60`, '--trials', '1', '--out', join(folder, 'facts.jsonl')])
    const firstDone = settle(first)
    for (let waited = 0; !existsSync(running); waited += 20) {
      if (waited > 30_000) throw new Error('the first run never started its trial')
      await sleep(20)
    }

    // The same file: refused. (Different files in one folder run side by side: hostile-output-safety.test.ts.)
    const second = await runCli(['collect', '--cmd', marksRun(folder), '--trials', '1', '--out', join(folder, 'facts.jsonl')])
    expect(second.code).toBe(2)
    expect(second.stderr.trim().split('\n')).toEqual([expect.stringContaining(`another flakeproof run (pid ${first.pid}) is writing ${join(folder, 'facts.jsonl')}`)])
    expect(existsSync(join(folder, 'ran'))).toBe(false)

    first.kill('SIGTERM')
    expect((await firstDone).code).toBe(143)
    // Released on the way out: the file is free again.
    expect(existsSync(join(folder, '.flakeproof.facts.jsonl.lock'))).toBe(false)
  })

  it('takes over a lock left by a run that is gone (kill -9)', async () => {
    const folder = tempDir()
    writeFileSync(join(folder, '.flakeproof.lock'), `${DEAD_PID}\n`)
    const result = await runCli(['measure', '--cmd', 'true', '--trials', '1', '--out', join(folder, 'rate.json')])
    expect(result.code).toBe(0)
    expect(readdirSync(folder)).toEqual(['rate.json'])
  })

  it('runs --jobs 12 without a MaxListenersExceededWarning', async () => {
    const out = join(tempDir(), 'rate.json')
    const result = await runCli(['measure', '--cmd', 'true', '--trials', '24', '--jobs', '12', '--out', out])
    expect(result.code).toBe(0)
    expect(result.stderr).not.toContain('Warning')
  })
})

describe('results that cannot be written', () => {
  it('exit 3 and the measured numbers on stderr when rate.json cannot be written after the trials ran', async () => {
    const dir = tempDir()
    // rate.json holds the command: 4000 characters make it larger than a 1-block limit (512 or 1024 bytes).
    const cmd = `true # ${'x'.repeat(4000)}`
    const result = await runCliWithFileLimit(1, ['measure', '--cmd', cmd, '--trials', '5', '--out', join(dir, 'rate.json')])
    expect(result.code).toBe(3)
    expect(result.stderr).toContain(`cannot write ${join(dir, 'rate.json')} (EFBIG): the results are not all on disk`)
    // 0 of 5: Wilson 95% upper end 0.4345 (CONTRACTS §2 formula, z = 1.96).
    expect(result.stderr).toContain('measured before it stopped (measure): 5 trials, 0 failed, rate 0.0%, 95% interval [0.0%, 43.4%]')
    expect(result.stderr).not.toMatch(/\n\s+at /)
    expect(readdirSync(dir)).toEqual([])
  })

  it('a full disk mid-collect stops the run, keeps only whole lines, and says how many trials they hold', async () => {
    const dir = tempDir()
    const facts = join(dir, 'facts.jsonl')
    // Each line carries 2000 bytes of stdout; an 8-block limit (4 or 8 KiB) holds one to three of them.
    const cmd = `node -e "console.log('x'.repeat(2000))"`
    const result = await runCliWithFileLimit(8, ['collect', '--cmd', cmd, '--trials', '20', '--out', facts])
    expect(result.code).toBe(3)
    const text = readFileSync(facts, 'utf8')
    expect(text.endsWith('\n')).toBe(true)
    const lines = text.trimEnd().split('\n').map((line) => FactSchema.parse(JSON.parse(line)))
    expect(lines.length).toBeGreaterThanOrEqual(1)
    expect(lines.length).toBeLessThan(20)
    expect(result.stderr).toContain(`measured before it stopped (collect): ${lines.length} trials, 0 failed`)
  })
})

describe('what is shown', () => {
  it('colours stderr only at a terminal: a CI log gets no escape codes', async () => {
    const out = join(tempDir(), 'rate.json')
    const env = { ...process.env, CI: 'true', FORCE_COLOR: undefined, NO_COLOR: undefined }
    const child = spawn(process.execPath, [BIN, 'measure', '--cmd', 'true', '--trials', '2', '--jobs', '2', '--out', out], { env, stdio: ['ignore', 'pipe', 'pipe'] })
    const result = await settle(child)
    expect(result.code).toBe(0)
    expect(result.stderr).toContain('--jobs 2: trials run in parallel')
    expect(result.stderr).not.toContain('\u001b')
  })
})
