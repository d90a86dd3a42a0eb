import { defineConfig } from 'vitest/config'

// CI asks for a machine-readable tally (FLAKEPROOF_TEST_RESULTS) to print `N passed, N failed`.
const resultsFile = process.env.FLAKEPROOF_TEST_RESULTS

export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts', 'test/e2e/**/*.test.ts'],
    exclude: ['**/node_modules/**', 'test/fixtures/**', 'examples/**'],
    testTimeout: 120_000,
    reporters: resultsFile ? ['default', ['json', { outputFile: resultsFile }]] : ['default'],
  },
})
