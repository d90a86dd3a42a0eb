/** A plain Jest config: `flakeproof jest` adds its reporter and wraps its test runner, keeping these. */
module.exports = {
  testEnvironment: 'node',
  reporters: ['default'],
  setupFilesAfterEnv: ['<rootDir>/test/setup.js'],
}
