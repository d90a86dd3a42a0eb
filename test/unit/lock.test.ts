import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { acquireOutputLock, LOCK_FILE } from '../../src/artifacts/lock.js'
import { tempDir } from '../utils.js'

/** A pid that cannot be alive: above the largest pid_max Linux allows (2^22). */
const DEAD_PID = 2 ** 22 + 1

describe('acquireOutputLock', () => {
  it('holds the folder with this pid until released', () => {
    const dir = tempDir()
    const lock = acquireOutputLock(dir)
    expect(lock.path).toBe(join(dir, LOCK_FILE))
    expect(readFileSync(lock.path, 'utf8')).toBe(`${process.pid}\n`)
    lock.release()
    lock.release()
    expect(readdirSync(dir)).toEqual([])
  })

  it('refuses a second hold in the same process (E_USAGE) and works again after release', () => {
    const dir = tempDir()
    const lock = acquireOutputLock(dir, '--out-dir x')
    expect(() => acquireOutputLock(dir, '--out-dir x')).toThrow(expect.objectContaining({ code: 'E_USAGE', message: expect.stringContaining('already holds') }))
    lock.release()
    acquireOutputLock(dir).release()
  })

  it('refuses a folder held by a live process (E_OUTPUT), naming its pid, and leaves its lock alone', () => {
    const dir = tempDir()
    // The parent of this test process is alive for as long as the test runs.
    writeFileSync(join(dir, LOCK_FILE), `${process.ppid}\n`)
    expect(() => acquireOutputLock(dir, '--out-dir x')).toThrow(
      expect.objectContaining({ code: 'E_OUTPUT', message: expect.stringContaining(`--out-dir x: another flakeproof run (pid ${process.ppid}) is writing in ${dir}`) }),
    )
    expect(readFileSync(join(dir, LOCK_FILE), 'utf8')).toBe(`${process.ppid}\n`)
  })

  it.each([
    ['a pid that cannot be alive', `${DEAD_PID}\n`],
    ['this pid, not held here (an earlier container or boot)', `${process.pid}\n`],
  ])('takes over a lock left with %s', (_name, content) => {
    const dir = tempDir()
    writeFileSync(join(dir, LOCK_FILE), content)
    const lock = acquireOutputLock(dir)
    expect(readFileSync(lock.path, 'utf8')).toBe(`${process.pid}\n`)
    lock.release()
  })

  it('refuses a lock it cannot read rather than guess', () => {
    const dir = tempDir()
    mkdirSync(join(dir, LOCK_FILE))
    expect(() => acquireOutputLock(dir)).toThrow(expect.objectContaining({ code: 'E_OUTPUT', message: expect.stringContaining('another process is writing') }))
  })

  it('writes a .gitignore of * into a folder it creates, never into one that exists, never over one', () => {
    const created = join(tempDir(), 'a', '.flakeproof')
    acquireOutputLock(created).release()
    expect(readFileSync(join(created, '.gitignore'), 'utf8').split('\n')).toContain('*')

    const existing = tempDir()
    acquireOutputLock(existing).release()
    expect(existsSync(join(existing, '.gitignore'))).toBe(false)

    writeFileSync(join(created, '.gitignore'), 'mine\n')
    acquireOutputLock(created).release()
    expect(readFileSync(join(created, '.gitignore'), 'utf8')).toBe('mine\n')
  })
})
