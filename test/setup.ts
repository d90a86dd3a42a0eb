import { afterAll } from 'vitest'
import { removeTempDirs } from './utils.js'

// Runs in every test file (vitest.config.ts `setupFiles`): the folders of `tempDir` go when the
// file's last test and afterAll hooks have run, so tests may read them across `it`s.
afterAll(removeTempDirs)
