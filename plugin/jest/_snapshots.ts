/**
 * jest-snapshot's SnapshotState (Jest 29 and 30): the fields a copy of a test touches. Internal to
 * Jest, read and restored here only, and each one only when it is there.
 */
export interface SnapshotState {
  /** Next number per snapshot name: `name`, or `name: hint` for `toMatchSnapshot('hint')`. */
  _counters?: Map<string, number>
  /** `.snap` entries by key (`name 1`, `name: hint 1`). */
  _snapshotData?: Record<string, string>
  /** Inline snapshots to write into the test file at the end (`toMatchInlineSnapshot()`). */
  _inlineSnapshots?: unknown[]
  _dirty?: boolean
  added?: number
  matched?: number
  unmatched?: number
  updated?: number
}

/** Jest's snapshot summary, per file. */
const COUNTS = ['added', 'matched', 'unmatched', 'updated'] as const

/** A test's snapshot names: its own, and `<name>: <hint>` of its named snapshots. */
function isNameOf(testName: string, snapshotName: string): boolean {
  return snapshotName === testName || snapshotName.startsWith(`${testName}: `)
}

/** A `.snap` key is `<snapshot name> <count>`. */
function isKeyOf(testName: string, key: string): boolean {
  return key.startsWith(`${testName} `) || key.startsWith(`${testName}: `)
}

/** What a test's snapshots were when its first copy started: every later copy starts from there. */
export interface SnapshotBase {
  counters: Map<string, number>
}

/** What a later copy found when it started: what it wrote is put back when it ends. */
export interface CopySnapshots {
  data: Map<string, string>
  inline: number
  dirty: boolean | undefined
  counts: Pick<SnapshotState, (typeof COUNTS)[number]>
}

/** Taken when a test's first copy starts. */
export function snapshotBase(state: SnapshotState, testName: string): SnapshotBase {
  return { counters: new Map([...(state._counters ?? [])].filter(([name]) => isNameOf(testName, name))) }
}

/**
 * A later copy starts: its counters (the test's name and each named hint) are put back to where the
 * first copy started, so it compares with the same keys and numbers none of its own; what it finds
 * is kept for `endCopy`.
 */
export function startCopy(state: SnapshotState, testName: string, base: SnapshotBase): CopySnapshots {
  const counters = state._counters
  if (counters) {
    for (const name of [...counters.keys()]) if (isNameOf(testName, name)) counters.delete(name)
    for (const [name, count] of base.counters) counters.set(name, count)
  }
  return {
    data: new Map(Object.entries(state._snapshotData ?? {}).filter(([key]) => isKeyOf(testName, key))),
    inline: state._inlineSnapshots?.length ?? 0,
    dirty: state._dirty,
    counts: { added: state.added, matched: state.matched, unmatched: state.unmatched, updated: state.updated },
  }
}

/**
 * A later copy ended: whatever it wrote is undone — its `.snap` entries, the inline snapshots it
 * queued, its written/passed/failed/updated counts — so the snapshot files and Jest's snapshot
 * summary are those of one execution of the test. A copy whose snapshot did not match still failed:
 * its error is the copy's, and counts in the measurement.
 * `alone`: no other test ran meanwhile (not `test.concurrent`), so a write flag it raised is its own.
 */
export function endCopy(state: SnapshotState, testName: string, found: CopySnapshots, alone: boolean): void {
  const data = state._snapshotData
  if (data) {
    for (const key of Object.keys(data)) if (isKeyOf(testName, key) && !found.data.has(key)) delete data[key]
    for (const [key, value] of found.data) data[key] = value
  }
  if (state._inlineSnapshots && state._inlineSnapshots.length > found.inline) state._inlineSnapshots.length = found.inline
  if (alone && found.dirty !== undefined) state._dirty = found.dirty
  for (const count of COUNTS) {
    const before = found.counts[count]
    if (before !== undefined) state[count] = before
  }
}
