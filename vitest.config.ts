import { defineConfig } from 'vitest/config'

// CI asks for a machine-readable tally (FLAKEPROOF_TEST_RESULTS) to print `N passed, N failed`.
const resultsFile = process.env.FLAKEPROOF_TEST_RESULTS

export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts', 'test/e2e/**/*.test.ts'],
    exclude: ['**/node_modules/**', 'test/fixtures/**', 'examples/**'],
    // Sized for a unit test or a short CLI run; slower tests carry their own timeout beside them,
    // so a hang shows in seconds, not after two minutes.
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Removes the folders of test/utils.ts `tempDir` once each file has run.
    setupFiles: ['test/setup.ts'],
    reporters: resultsFile ? ['default', ['json', { outputFile: resultsFile }]] : ['default'],
  },
})
