import { inspect } from 'node:util'
import { describe, expect, it } from 'vitest'
import { FlakeproofError, flakeproofErrorIn, inOneLine } from '../../src/errors.js'

/** What inOneLine threw, or undefined. */
function thrownBy(run: () => unknown): unknown {
  try {
    run()
  } catch (error) {
    return error
  }
  return undefined
}

describe('inOneLine: a user’s mistake as the one line a runner prints, whoever prints it', () => {
  it('passes a value through untouched', () => {
    expect(inOneLine(() => 42)).toBe(42)
  })

  it('turns a FlakeproofError into one line under each way a runner prints an error, keeping the original for the CLI', () => {
    const ours = new FlakeproofError('--flaky-enforce: no committed policy at flakeproof.policy.json', 'E_INPUT')
    const error = thrownBy(() =>
      inOneLine(() => {
        throw ours
      }),
    ) as Error
    const line = 'flakeproof: --flaky-enforce: no committed policy at flakeproof.policy.json'
    // Playwright and Vitest print with console.error (util.inspect); Jest prints `error.stack`.
    expect(inspect(error)).toBe(line)
    expect(error.stack).toBe(line)
    expect(error.message).toBe(line)
    // `flakeproof <runner>` still tells its own error (exit 2) from the runner's.
    expect(flakeproofErrorIn(error)).toBe(ours)
  })

  it('leaves any other error as it was: a bug keeps its stack', () => {
    const bug = new TypeError('x is undefined')
    expect(
      thrownBy(() =>
        inOneLine(() => {
          throw bug
        }),
      ),
    ).toBe(bug)
  })
})
