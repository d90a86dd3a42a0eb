/**
 * Which test each test case of a series of reports is (docs/contracts.md §7, "Identity"). A name
 * written twice in one run is, by the producer's own rules (src/core/junit-dialect.ts), either two
 * attempts of one test (Playwright's `--repeat-each`, Surefire's reruns) or two tests. Two tests of
 * one suite are numbered ` (#2)` in the order the suite lists them, which is their declaration order
 * and the same in every run, as the adapters number them (src/core/test-id.ts). Two tests in two
 * suites (jest-junit's and node:test's defaults write no file) are told apart by the suites around
 * them: the names of their siblings. When that cannot tell them apart either (two suites holding the
 * same tests), no report can say which one failed: those tests are left out of the counts with one
 * error naming the producer's setting that fixes it, never numbered in report order, which changes
 * between runs (Jest orders files by their last duration).
 */
import { formatTestId, type TestIdentity } from './test-id.js'

/** One suite's test cases, in report order, as the table needs them. */
export interface SuiteCases {
  identities: readonly TestIdentity[]
  /** The cases' own names, for the signature of the suite and to name a sibling. */
  names: readonly string[]
  /** Names written twice are attempts of one test (src/core/junit-dialect.ts `repeatsAreAttempts`). */
  repeatsAreAttempts: boolean
}

/** Why a test was left out, for one run error. */
export interface Ambiguity {
  id: string
  /** The most times it was written in one run. */
  copies: number
  /** The producer that wrote it, for the setting that fixes it. */
  producer: string
}

/**
 * Interns each distinct (identity, suite) of a series and decides, once every run was seen, the id of
 * each or that it is left out. Hand it each run's suites between `startRun` and `endRun`; `cases`
 * returns one number per case, which `idOf` turns into the id after `decide`.
 */
export class IdentityTable {
  private readonly _keys = new Map<string, number>()
  private readonly _entries: Entry[] = []
  private readonly _duplicated = new Set<string>()
  private readonly _ambiguous = new Set<string>()
  private readonly _copies = new Map<string, number>()
  /** In the current run: cases per base id (tests only, not attempts), and per entry. */
  private _runBases = new Map<string, number>()
  private _runEntries = new Map<number, number>()
  private _runSiblings = new Map<number, readonly string[]>()
  private _ids: (string | null)[] | undefined

  startRun(): void {
    this._runBases = new Map()
    this._runEntries = new Map()
    this._runSiblings = new Map()
  }

  /** The entry of each case of one suite, in order. */
  cases(suite: SuiteCases, producer: string): number[] {
    const bases = baseIdsOf(suite)
    // Attempts of one test need no signature: the suite they are in is not what they are.
    const signature = suite.repeatsAreAttempts ? '' : signatureOf(suite.names)
    return bases.map((base) => {
      const key = `${base}\u0000${signature}`
      let entry = this._keys.get(key)
      if (entry === undefined) {
        entry = this._entries.length
        this._entries.push({ base, signature, producer, siblings: undefined })
        this._keys.set(key, entry)
      }
      if (!suite.repeatsAreAttempts) {
        this._runBases.set(base, (this._runBases.get(base) ?? 0) + 1)
        this._runEntries.set(entry, (this._runEntries.get(entry) ?? 0) + 1)
        this._runSiblings.set(entry, suite.names)
      }
      return entry
    })
  }

  endRun(): void {
    for (const [base, n] of this._runBases) {
      if (n < 2) continue
      this._duplicated.add(base)
      this._copies.set(base, Math.max(this._copies.get(base) ?? 0, n))
    }
    for (const [entry, n] of this._runEntries) {
      const e = this._entries[entry] as Entry
      if (this._duplicated.has(e.base)) e.siblings ??= this._runSiblings.get(entry)
      // The same name in two suites alike, in one run: nothing tells them apart.
      if (n > 1) this._ambiguous.add(e.base)
    }
    // What the run's bookkeeping held is folded in: one record per case need not outlive its run.
    this.startRun()
  }

  /** Decides every id; call once, after the last run. */
  decide(): Ambiguity[] {
    const bySignature = new Map<string, number[]>()
    this._entries.forEach((e, i) => {
      if (this._duplicated.has(e.base)) bySignature.set(e.base, [...(bySignature.get(e.base) ?? []), i])
    })
    const ids: (string | null)[] = this._entries.map((e) => (this._duplicated.has(e.base) ? null : e.base))
    const ambiguities: Ambiguity[] = []
    for (const [base, entries] of bySignature) {
      if (this._ambiguous.has(base)) {
        ambiguities.push({ id: base, copies: this._copies.get(base) ?? 2, producer: (this._entries[entries[0] as number] as Entry).producer })
        continue
      }
      const names = besideNames(entries.map((i) => this._entries[i]?.siblings ?? []))
      entries.forEach((entry, k) => {
        const e = this._entries[entry] as Entry
        ids[entry] = `${base} (${names[k] ?? `suite ${e.signature.slice(0, 8)}`})`
      })
    }
    this._ids = ids
    // Only the ids are asked for from now on.
    this._keys.clear()
    return ambiguities
  }

  /** The id of an entry, or null when it is left out of the counts. */
  idOf(entry: number): string | null {
    if (this._ids === undefined) throw new Error('IdentityTable.idOf before decide()')
    return this._ids[entry] ?? null
  }
}

// --- internal ---

interface Entry {
  base: string
  signature: string
  producer: string
  /** The names in its suite, kept only for a name written in two suites (to say which suite it is). */
  siblings: readonly string[] | undefined
}

/** Ids within one suite: a name written twice there is numbered in order, unless it is an attempt. */
function baseIdsOf(suite: SuiteCases): string[] {
  const taken = new Map<string, number>()
  return suite.identities.map((identity) => {
    const id = formatTestId(identity)
    if (suite.repeatsAreAttempts) return id
    const n = (taken.get(id) ?? 0) + 1
    taken.set(id, n)
    return n === 1 ? id : `${id} (#${n})`
  })
}

/** The set of names in a suite, as a short stable text (FNV-1a, 2 × 32 bits). */
function signatureOf(names: readonly string[]): string {
  const text = [...new Set(names)].sort().join('\u0000')
  let a = 0x811c9dc5
  let b = 0x01000193 ^ 0x5bd1e995
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    a = Math.imul(a ^ code, 0x01000193) >>> 0
    b = Math.imul(b ^ code, 0x01000193 ^ 0x2545f491) >>> 0
  }
  return `${a.toString(16).padStart(8, '0')}${b.toString(16).padStart(8, '0')}`
}

/**
 * For each suite of one name, a sibling only it holds (`beside "only in b"`), the first in sort
 * order, so the same suite gets the same words in every run; undefined where every sibling is shared.
 */
function besideNames(suites: readonly (readonly string[])[]): (string | undefined)[] {
  return suites.map((names, k) => {
    const others = new Set(suites.flatMap((o, j) => (j === k ? [] : o)))
    const own = names.filter((name) => !others.has(name)).sort()
    return own[0] === undefined ? undefined : `beside ${JSON.stringify(own[0])}`
  })
}
