/**
 * Each distinct item once, in the order first seen, with how many times it came: each copy of a test
 * may leave the same error behind (an unhandled rejection per repetition), which reads best once,
 * counted. Items are the same when `key` gives the same text.
 */
export function countDistinct<T>(items: readonly T[], key: (item: T) => string): { item: T; times: number }[] {
  const seen = new Map<string, { item: T; times: number }>()
  for (const item of items) {
    const k = key(item)
    const entry = seen.get(k)
    if (entry) entry.times++
    else seen.set(k, { item, times: 1 })
  }
  return [...seen.values()]
}
