/**
 * A rate limiter whose window counter wraps one call too early: every 5th call in a process is
 * refused although the limit is 5 per window. Deterministic (a counter), so the demo's numbers are
 * the same every run. EXAMPLE_FIXED=1 selects the fixed comparison.
 */
let calls = 0

function tryAcquire(limit = 5) {
  calls++
  const used = process.env.EXAMPLE_FIXED === '1' ? ((calls - 1) % limit) + 1 : calls % limit
  return used !== 0
}

function delayed(ms, value) {
  return new Promise((resolve) => setTimeout(() => resolve(value), ms))
}

module.exports = { tryAcquire, delayed }
