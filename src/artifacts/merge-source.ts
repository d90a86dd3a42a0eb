import { createHash } from 'node:crypto'
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import fg from 'fast-glob'
import { FlakeproofError } from '../errors.js'
import { describeKind } from './_fs.js'
import { readJsonFile, readJsonLinesFile } from './read.js'
import { type Fact, FactSchema, type RateFile, RateFileSchema } from './schemas.js'
import { indexTestFacts, type TestFactsIndex } from './test-facts-index.js'

/**
 * One output folder to merge (docs/contracts.md §10): its rate.json, and its facts.jsonl — command
 * mode: every line (null when the folder has none, as `measure --out` leaves it); test mode: where
 * each test's lines are, read one test at a time.
 */
export type MergeSource =
  | { dir: string; kind: 'command'; rate: RateFile; facts: Fact[] | null }
  | { dir: string; kind: 'test'; rate: RateFile; tests: TestFactsIndex }

const HINT = 'Pass output folders of `flakeproof measure`/`collect` or of a Vitest run, each with rate.json and facts.jsonl'

/** The folders to merge, and what was left out of them: the same folder named again, said once. */
export interface MergeInputs {
  dirs: string[]
  /** `s1/ is the same folder as s1`, one per folder named again (a trailing `/`, `./`, a link to it). */
  duplicates: string[]
}

/**
 * The folders named by `inputs`: a folder as given, anything else a glob (fast-glob) matching
 * folders, its matches sorted so a merge does not depend on the order the disk lists them in. A
 * folder is known by its real path, so `s1`, `s1/`, `./s1` and a link to it are one folder, merged
 * once. A glob never matches the output folder `out` (`merge "d/*" --out d/merged`): the output of
 * a merge is no input of itself; naming it outright is refused (`assertOutsideInputs`).
 */
export function expandMergeInputs(inputs: readonly string[], out?: string): MergeInputs {
  const outside = out === undefined ? undefined : realOf(out)
  const byReal = new Map<string, string>()
  const dirs: string[] = []
  const duplicates: string[] = []
  const add = (dir: string): void => {
    const real = realOf(dir)
    const first = byReal.get(real)
    if (first === undefined) {
      byReal.set(real, dir)
      dirs.push(dir)
    } else if (first !== dir) duplicates.push(`${dir} is the same folder as ${first}`)
  }
  for (const input of inputs) {
    if (existsSync(input) && statSync(input).isDirectory()) {
      add(input)
      continue
    }
    const matched = fg.sync(input, { onlyDirectories: true, dot: true }).sort()
    if (matched.length === 0) {
      throw new FlakeproofError(`${input}: no such folder, and no folder matches it as a glob; quote a glob so the shell leaves it to flakeproof, e.g. "shards/*"`, 'E_INPUT')
    }
    for (const dir of matched) if (realOf(dir) !== outside) add(dir)
  }
  return { dirs, duplicates }
}

/** What a folder's rate.json says of the runs it holds (read before its facts are). */
export interface RunIdentity {
  dir: string
  /** Its `run_id`, or `sha256:<hex>` of its rate.json when written before folders had one. */
  id: string
  /** The runs it adds up: those it merged (`merged_runs`), else itself. */
  runs: string[]
}

/**
 * Each run counted once (docs/contracts.md §10): a folder holding the same run as one before it (a
 * copy: the same run id, or the same rate.json), or runs all in one before it (a merge's input beside
 * the merge), is left out and said; a merge that holds one of those runs but not all of them cannot
 * be taken apart, and is refused. A merge that holds a folder named before it takes its place.
 * @throws FlakeproofError `E_INPUT`
 */
export function countEachRunOnce(dirs: readonly string[]): { dirs: string[]; duplicates: string[]; runs: string[] } {
  const kept: RunIdentity[] = []
  const duplicates: string[] = []
  for (const dir of dirs) {
    const run = identifyRun(dir)
    const same = kept.find((k) => k.id === run.id)
    if (same) {
      duplicates.push(`${dir} holds the same run as ${same.dir} (${run.id.startsWith('sha256:') ? 'the same rate.json' : `run_id ${run.id}`})`)
      continue
    }
    const within = kept.find((k) => run.runs.every((r) => k.runs.includes(r)))
    if (within) {
      duplicates.push(`${dir} is already merged into ${within.dir}`)
      continue
    }
    for (const k of kept.filter((k) => k.runs.every((r) => run.runs.includes(r)))) {
      duplicates.push(`${k.dir} is already merged into ${dir}`)
      kept.splice(kept.indexOf(k), 1)
    }
    const overlap = kept.find((k) => k.runs.some((r) => run.runs.includes(r)))
    if (overlap) {
      const shared = overlap.runs.find((r) => run.runs.includes(r)) as string
      throw new FlakeproofError(`${dir}: holds a run that ${overlap.dir} holds too (run_id ${shared}), but not all of them; merge the folders they were made from instead`, 'E_INPUT')
    }
    kept.push(run)
  }
  // `runs`: what the merge of the kept folders holds, for its own rate.json's `merged_runs`.
  return { dirs: kept.map((k) => k.dir), duplicates, runs: [...new Set(kept.flatMap((k) => k.runs))] }
}

/**
 * Refuses an output folder that is one of the inputs: its facts are read while the merged ones are
 * written, so it would be cut before it is read.
 */
export function assertOutsideInputs(out: string, dirs: readonly string[]): void {
  const real = (path: string): string => (existsSync(path) ? realpathSync(path) : resolve(path))
  const clash = dirs.find((dir) => real(dir) === real(out))
  if (clash !== undefined) throw new FlakeproofError(`--out ${out} is also a folder to merge (${clash}); write the merge to a new folder, e.g. --out merged`, 'E_USAGE')
}

/**
 * Reads one folder. A folder written by another schema version is refused by name before its
 * fields are read: counts whose meaning may differ must not be added.
 */
export function readMergeSource(dir: string): MergeSource {
  const ratePath = join(dir, 'rate.json')
  refuseSpecial(dir, 'rate.json')
  const version = schemaVersionOf(ratePath)
  if (version !== 1) {
    throw new FlakeproofError(`${dir}: rate.json has schema_version ${JSON.stringify(version)}, this flakeproof reads 1; merge folders written by the same major version`, 'E_INPUT')
  }
  const rate = readJsonFile(ratePath, RateFileSchema, 'input', HINT)
  const factsPath = join(dir, 'facts.jsonl')
  refuseSpecial(dir, 'facts.jsonl')
  const hasFacts = existsSync(factsPath)
  if (rate.tests === undefined) return { dir, kind: 'command', rate, facts: hasFacts ? readJsonLinesFile(factsPath, FactSchema, 'input', HINT) : null }
  if (!hasFacts) {
    throw new FlakeproofError(`${dir}: no facts.jsonl, so its rounds cannot be lined up with the other folders; keep facts.jsonl with rate.json when collecting shard outputs`, 'E_INPUT')
  }
  return { dir, kind: 'test', rate, tests: indexTestFacts(factsPath, 'input', HINT) }
}

// --- internal ---

function realOf(path: string): string {
  return existsSync(path) ? realpathSync(path) : resolve(path)
}

/** One folder's run: read from its rate.json alone (cheap), before anything else is. */
function identifyRun(dir: string): RunIdentity {
  refuseSpecial(dir, 'rate.json')
  let text: string
  try {
    text = readFileSync(join(dir, 'rate.json'), 'utf8')
  } catch {
    // Unreadable: readMergeSource names the problem; an unreadable folder is no copy of another.
    return { dir, id: `unread:${realOf(dir)}`, runs: [`unread:${realOf(dir)}`] }
  }
  let fields: { run_id?: unknown; merged_runs?: unknown } = {}
  try {
    fields = JSON.parse(text) as typeof fields
  } catch {
    // Not JSON: readMergeSource names the problem.
  }
  const id = typeof fields.run_id === 'string' ? fields.run_id : `sha256:${createHash('sha256').update(text).digest('hex')}`
  const merged = Array.isArray(fields.merged_runs) ? fields.merged_runs.filter((r): r is string => typeof r === 'string') : []
  return { dir, id, runs: merged.length > 0 ? merged : [id] }
}

/**
 * A rate.json or facts.jsonl that is a named pipe, a device or a folder would block the merge, or be
 * read without end: refused before it is opened (a link to a regular file is read as that file).
 */
function refuseSpecial(dir: string, name: string): void {
  let kind: string | undefined
  try {
    kind = describeKind(statSync(join(dir, name)))
  } catch {
    // Missing: the reader says so.
    return
  }
  if (kind !== undefined) throw new FlakeproofError(`${dir}: ${name} is ${kind}, not a regular file; merge output folders as flakeproof wrote them`, 'E_INPUT')
}

function schemaVersionOf(path: string): unknown {
  try {
    return (JSON.parse(readFileSync(path, 'utf8')) as { schema_version?: unknown }).schema_version
  } catch {
    // Unreadable or not JSON: the schema check that follows names the problem.
    return 1
  }
}
