import { flakeproof } from 'flakeproof/vitest'
import { defineConfig } from 'vitest/config'

// Inactive until asked: `vitest run -- --flaky-repeat 200`, FLAKEPROOF_REPEAT=200, or `--flaky-proof`.
export default defineConfig({
  plugins: [flakeproof()],
  test: { include: ['test/**/*.test.ts'] },
})
