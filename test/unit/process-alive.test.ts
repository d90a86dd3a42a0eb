import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { isProcessAlive } from '../../src/artifacts/_process.js'
import { stateOfStat } from '../../src/core/cpu-load.js'
import { tempDir } from '../utils.js'

/**
 * A process is alive while it runs: a zombie (ended, its status not yet collected by its parent) is
 * not. The end of a Jest or Playwright run asks this of a worker that may have died; counted alive,
 * the repetition it cut short would be "stopped" and not the crash it was (src/session/test-session.ts).
 */
describe('isProcessAlive', () => {
  it.each([
    ['sleeping', 'S', true],
    ['running', 'R', true],
    ['waiting on the disk', 'D', true],
    ['a zombie', 'Z', false],
    ['dead, being removed', 'X', false],
  ])('this process, its /proc/<pid>/stat saying %s (%s): %s', (_, state, alive) => {
    // A /proc of its own for this pid, whose name holds a space and a parenthesis as a command's may.
    const proc = tempDir()
    mkdirSync(join(proc, String(process.pid)))
    writeFileSync(join(proc, String(process.pid), 'stat'), `${process.pid} (node (x) y) ${state} 1 ${process.pid} 0\n`)
    expect(isProcessAlive(process.pid, proc)).toBe(alive)
  })

  it('this process where there is no /proc (macOS, Windows): alive, as kill(pid, 0) says', () => {
    expect(isProcessAlive(process.pid, join(tempDir(), 'none'))).toBe(true)
  })

  it.runIf(existsSync('/proc/self/stat'))('a real zombie: a child of a shell that never collects it', async () => {
    // `sh` starts a child in the background and becomes `sleep` (exec), which never waits. The child
    // ends only once its parent is `sleep` (a child that ended before the exec, sh could reap: 35 of
    // 200 tries did): it ends a zombie, and stays one until `sleep` ends and init collects it.
    const script = 'p=$$; (while [ "$(cat /proc/$p/comm)" != sleep ]; do :; done) & echo $!; exec sleep 30'
    const shell = spawn('sh', ['-c', script], { stdio: ['ignore', 'pipe', 'inherit'] })
    try {
      const pid = Number((await new Promise<Buffer>((resolve) => shell.stdout.once('data', resolve))).toString().trim())
      // The shell printed the pid when the child started: wait (without a time limit of our own) until it has ended.
      while (stateOfStat(readFileSync(`/proc/${pid}/stat`, 'utf8')) !== 'Z') await new Promise((resolve) => setTimeout(resolve, 10))
      expect(() => process.kill(pid, 0)).not.toThrow()
      expect(isProcessAlive(pid)).toBe(false)
      expect(isProcessAlive(shell.pid as number)).toBe(true)
    } finally {
      shell.kill()
    }
  })
})
