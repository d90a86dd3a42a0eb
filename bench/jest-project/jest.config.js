/** 10 files × 10 trivial tests: the cost measured is Jest's per-process and per-test overhead. */
module.exports = { testEnvironment: 'node' }
