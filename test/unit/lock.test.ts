import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { acquireFileLock, acquireOutputLock, fileLockName, LOCK_FILE } from '../../src/artifacts/lock.js'
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

describe('locks hostile input cannot fool', () => {
  it('a lock holding 0 (or a negative number) names no process: taken over, not "pid 0"', () => {
    // kill(0, 0) signals this process group, which is always alive: 0 must never be asked about.
    const dir = tempDir()
    writeFileSync(join(dir, LOCK_FILE), '0\n')
    const lock = acquireOutputLock(dir)
    expect(readFileSync(lock.path, 'utf8')).toBe(`${process.pid}\n`)
    lock.release()
  })

  it('runs writing different files into one folder hold a lock each', () => {
    const dir = tempDir()
    const a = acquireFileLock(join(dir, 'a.json'), '--out a.json')
    const b = acquireFileLock(join(dir, 'b.json'), '--out b.json')
    expect(a.path).toBe(join(dir, fileLockName('a.json')))
    expect(readdirSync(dir).sort()).toEqual(['.flakeproof.a.json.lock', '.flakeproof.b.json.lock'])
    a.release()
    b.release()
  })

  it('a run holding the folder and a run writing one file in it wait for each other', () => {
    const dir = tempDir()
    // Held by a live process other than this one: the parent of this test process.
    writeFileSync(join(dir, fileLockName('a.json')), `${process.ppid}\n`)
    expect(() => acquireOutputLock(dir, '--out-dir d')).toThrow(
      expect.objectContaining({ code: 'E_OUTPUT', message: expect.stringContaining(`--out-dir d: another flakeproof run (pid ${process.ppid}) is writing ${join(dir, 'a.json')}`) }),
    )
    // Refused after taking its own lock: it gave that back.
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false)
    writeFileSync(join(dir, LOCK_FILE), `${process.ppid}\n`)
    expect(() => acquireFileLock(join(dir, 'b.json'), '--out b.json')).toThrow(expect.objectContaining({ code: 'E_OUTPUT', message: expect.stringContaining(`is writing in ${dir}`) }))
  })

  it('abandon() removes the folder the lock made when nothing else was written there, and keeps it otherwise', () => {
    const root = tempDir()
    acquireOutputLock(join(root, 'a', 'b')).abandon()
    expect(readdirSync(root)).toEqual([])
    const used = acquireOutputLock(join(root, 'c'))
    writeFileSync(join(root, 'c', 'rate.json'), '{}')
    used.abandon()
    expect(readdirSync(join(root, 'c')).sort()).toEqual(['.gitignore', 'rate.json'])
  })

  it('refuses an output folder that is a symbolic link, or reached through one inside the root', () => {
    const root = tempDir()
    mkdirSync(join(root, 'real'))
    symlinkSync('real', join(root, 'L'))
    expect(() => acquireOutputLock(join(root, 'L'), '--out-dir L', { root })).toThrow(
      expect.objectContaining({ code: 'E_OUTPUT', message: '--out-dir L is a symbolic link to real, and flakeproof never writes through one; give the folder itself, or a new one' }),
    )
    expect(() => acquireOutputLock(join(root, 'L', 'deeper'), '--out-dir L/deeper', { root })).toThrow(expect.objectContaining({ message: expect.stringContaining('L is a symbolic link to real') }))
    // Nothing was made through the link.
    expect(readdirSync(join(root, 'real'))).toEqual([])
  })
})
