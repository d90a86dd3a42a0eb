import { appendFileSync, readFileSync } from 'node:fs'
import { relative } from 'node:path'
import { afterAll, beforeAll, expect } from 'vitest'
import { fieldsOfStat } from '../src/core/cpu-load.js'
import { removeTempDirs } from './utils.js'

// Runs in every test file (vitest.config.ts `setupFiles`): the folders of `tempDir` go when the
// file's last test and afterAll hooks have run, so tests may read them across `it`s.
afterAll(removeTempDirs)

// Under .ci/run (FLAKEPROOF_TEST_DURATIONS), each file's CPU time too: its worker's and that of every
// process it started and waited for (the CLI, Vitest, Jest, npm it runs), from /proc/self/stat. The
// suite runs three files on two cores, so CPU, not the wall time of one file, is what the whole costs.
const durationsFile = process.env.FLAKEPROOF_TEST_DURATIONS
if (durationsFile !== undefined && process.platform === 'linux') {
  let started = 0
  beforeAll(() => {
    started = cpuTicks()
  })
  // Registered after removeTempDirs, so it runs before it (hooks run as a stack): removing folders is
  // not the file's work.
  afterAll(() => {
    const file = relative(process.cwd(), expect.getState().testPath ?? '')
    // Linux counts /proc times in USER_HZ, 100 a second on every architecture Node runs on.
    appendFileSync(durationsFile, `${JSON.stringify({ file, cpu_ms: (cpuTicks() - started) * 10 })}\n`)
  })
}

/** utime + stime + cutime + cstime of this process, in clock ticks (proc(5): fields 14–17). */
function cpuTicks(): number {
  const fields = fieldsOfStat(readFileSync('/proc/self/stat', 'utf8')) ?? []
  return fields.slice(11, 15).reduce((sum, f) => sum + Number(f), 0)
}
