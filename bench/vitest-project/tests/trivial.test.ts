import { expect, test } from 'vitest'

const tests = Number(process.env.BENCH_TESTS ?? 1)
const repeats = Number(process.env.BENCH_NATIVE_REPEATS ?? 0)

for (let i = 0; i < tests; i++) {
  test(`trivial ${i}`, { repeats }, () => {
    expect(i + 1).toBeGreaterThan(i)
  })
}
