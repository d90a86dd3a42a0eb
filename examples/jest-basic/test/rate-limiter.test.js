const { tryAcquire, delayed } = require('../src/rate-limiter')

describe('rate limiter', () => {
  test('admits a request under the limit', () => {
    expect(tryAcquire()).toBe(true)
  })

  test('formats its status', () => {
    expect({ limit: 5, window: '1s' }).toMatchSnapshot()
  })

  test('resolves after its delay', async () => {
    jest.useFakeTimers()
    const result = delayed(1000, 'ok')
    jest.advanceTimersByTime(1000)
    await expect(result).resolves.toBe('ok')
    jest.useRealTimers()
  })

  test('stable arithmetic', () => {
    expect(1 + 1).toBe(2)
  })
})

test('the project setup file ran', () => {
  expect(globalThis.exampleSetupRan).toBe(true)
})
