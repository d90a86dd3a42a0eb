import { beforeAll, describe, expect, test } from 'vitest'
import { FixedTokenCache, TokenCache } from '../src/token-cache.js'

// EXAMPLE_FIXED=1 runs the same tests against the fixed cache (what a proof run checks).
const Cache = process.env.EXAMPLE_FIXED === '1' ? FixedTokenCache : TokenCache

/** One turn of the event loop: a request's own I/O before it asks for the token. */
const ioTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

let issued = 0
/** The token server is local and quick: it answers two event-loop turns later. */
const fetchToken = async (): Promise<string> => {
  await ioTurn()
  await ioTurn()
  return `token-${++issued}`
}

describe('TokenCache', () => {
  // One cache for the whole file, as an app would share one.
  const cache = new Cache(fetchToken)
  beforeAll(() => cache.warmUp())

  test('serves a token to every request', async () => {
    await ioTurn()
    expect(cache.get(), 'MISSING token: the cache was refreshing').toBeTypeOf('string')
  })

  test('fetches the first token on warm-up', async () => {
    const fresh = new Cache(fetchToken)
    await fresh.warmUp()
    expect(fresh.get()).toMatch(/^token-/)
  })
})
