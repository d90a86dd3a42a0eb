/**
 * "Did you mean": the one declared name a mistyped one was most likely meant to be, or none.
 *
 * The distance is Damerau–Levenshtein in its restricted form (optimal string alignment): an
 * insertion, a deletion, a substitution or a swap of two neighbours costs 1, so `--flaky-repet`,
 * `--flaky-repaet` and `mesure` are each one edit away from what was meant.
 */

/** Edits (insert, delete, substitute, swap neighbours) turning `a` into `b`, no substring edited twice. */
export function editDistance(a: string, b: string): number {
  // Three rows suffice: a swap looks two rows back.
  let before: number[] = []
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, (previous[j - 1] as number) + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, (before[j - 2] as number) + 1)
      current.push(best)
    }
    before = previous
    previous = current
  }
  return previous[b.length] as number
}

/**
 * The name `given` was most likely meant to be: the nearest by edit distance when it is close (at
 * most a third of the name's length, and at least 1 edit allowed), else the one name `given` is a
 * prefix of (`--flaky-rep`); undefined when nothing is close, so a wild guess is never offered.
 * Names sharing a prefix (`--flaky-`, `--`) are compared on what follows it: `--flaky-x` is not
 * "close" to every flag merely because eight of its ten characters match. Ties go to the name
 * declared first.
 */
export function closest(given: string, names: readonly string[]): string | undefined {
  if (names.includes(given)) return given
  const prefix = sharedPrefix(names)
  const tail = (name: string): string => (name.startsWith(prefix) ? name.slice(prefix.length) : name)
  const typed = tail(given).toLowerCase()
  let best: { name: string; distance: number } | undefined
  for (const name of names) {
    const distance = editDistance(typed, tail(name).toLowerCase())
    if (distance <= Math.max(1, Math.floor(tail(name).length / 3)) && (best === undefined || distance < best.distance)) best = { name, distance }
  }
  if (best) return best.name
  const extending = typed.length >= 2 ? names.filter((name) => tail(name).toLowerCase().startsWith(typed)) : []
  return extending.length === 1 ? extending[0] : undefined
}

/** `; did you mean <name>?`, or '' when nothing is close: the clause errors append to their one line. */
export function didYouMean(given: string, names: readonly string[], quote: (name: string) => string = (name) => name): string {
  const name = closest(given, names)
  return name === undefined || name === given ? '' : `; did you mean ${quote(name)}?`
}

// --- internal ---

/** The longest prefix every name shares, cut back to a word boundary (`--flaky-`, `--`). */
function sharedPrefix(names: readonly string[]): string {
  if (names.length < 2) return ''
  let prefix = names[0] as string
  for (const name of names) while (!name.startsWith(prefix)) prefix = prefix.slice(0, -1)
  const boundary = Math.max(prefix.lastIndexOf('-'), prefix.lastIndexOf('_'))
  return boundary < 0 ? '' : prefix.slice(0, boundary + 1)
}
