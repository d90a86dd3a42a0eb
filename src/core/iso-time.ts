/**
 * Date.parse that remembers the last text it parsed: every record of one history run has the same
 * `at`, so a run of a thousand tests parses it once, not a thousand times. Same numbers as Date.parse.
 */
export function lastTimeParser(): (at: string) => number {
  let text: string | undefined
  let time = Number.NaN
  return (at) => {
    if (at !== text) {
      text = at
      time = Date.parse(at)
    }
    return time
  }
}
