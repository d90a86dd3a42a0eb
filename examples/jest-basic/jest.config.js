/** A plain Jest config: `flakeproof jest` adds its reporter and setup file to it, keeping these. */
module.exports = {
  testEnvironment: 'node',
  reporters: ['default'],
  setupFilesAfterEnv: ['<rootDir>/test/setup.js'],
}
