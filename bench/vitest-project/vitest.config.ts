import { defineConfig } from 'vitest/config'
import { flakeproof } from 'flakeproof/vitest'

// BENCH_TESTS trivial tests in one file; BENCH_NATIVE_REPEATS switches to Vitest's own `repeats`.
// bench/vitest-repeat.mjs copies this project and installs flakeproof in it, as users have it.
export default defineConfig({
  plugins: [flakeproof()],
  test: { include: ['tests/*.test.ts'] },
})
