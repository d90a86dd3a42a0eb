import { defineConfig } from 'vitest/config'
import { flakeproof } from '../../dist/plugin/vitest/plugin.js'

// BENCH_TESTS trivial tests in one file; BENCH_NATIVE_REPEATS switches to Vitest's own `repeats`.
export default defineConfig({
  plugins: [flakeproof()],
  test: { include: ['tests/*.test.ts'] },
})
