#!/usr/bin/env node
// The lab's intermittent job: a cache refreshed on every fifth call. A call that comes right after
// the previous one reads the entry while it is being rewritten and fails; a slow caller (or the
// fixed version, which waits for the refresh) never does. Deterministic: a counter, never a coin.
//
// Contract: node job.js [--fixed] [--state <dir>] [--seed <n>]
//   success: one JSON line on stdout, exit 0; failure: one stderr line with a capital word, exit 3.
// --seed shifts which call of each five is the unlucky one. State (the counter and the time the
// last call ended) lives in --state, default $TMPDIR/flakeproof-lab.
import { mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'

/** A call within this long of the previous call's end is "quick" and can race the refresh. */
const QUICK_MS = 1500

const { values } = parseArgs({
  options: { fixed: { type: 'boolean', default: false }, state: { type: 'string' }, seed: { type: 'string', default: '0' } },
})
const seed = Number(values.seed)
if (!Number.isInteger(seed)) {
  process.stderr.write(`job: --seed must be an integer (got ${JSON.stringify(values.seed)})\n`)
  process.exit(2)
}
const stateDir = values.state ?? join(tmpdir(), 'flakeproof-lab')
mkdirSync(stateDir, { recursive: true })

// Parallel callers (flakeproof --jobs) must not lose counts: take a lock around the counter.
const lock = join(stateDir, 'lock')
const deadline = Date.now() + 10_000
for (;;) {
  try {
    mkdirSync(lock)
    break
  } catch {
    if (Date.now() > deadline) rmdirSync(lock) // a crashed caller left it behind
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2)
  }
}

const stateFile = join(stateDir, 'state.json')
let state = { calls: 0, lastEndMs: 0 }
try {
  state = JSON.parse(readFileSync(stateFile, 'utf8'))
} catch {
  // First call.
}
const call = state.calls + 1
// Measured from this process's start, not from now: on a loaded machine Node's own start-up (and the
// lock) can take longer than QUICK_MS, which would make a caller that came at once look slow.
const sinceLastMs = Math.max(0, Math.round(performance.timeOrigin - state.lastEndMs))
const refreshing = (call + seed) % 5 === 0
const failed = refreshing && sinceLastMs < QUICK_MS && !values.fixed

writeFileSync(stateFile, JSON.stringify({ calls: call, lastEndMs: Date.now() }))
rmdirSync(lock)

if (failed) {
  process.stderr.write(`cache: STALE entry read during refresh on call ${call} (${sinceLastMs} ms after the previous call)\n`)
  process.exit(3)
}
process.stdout.write(`${JSON.stringify({ ok: true, call, value: `v${Math.floor(call / 5)}` })}\n`)
