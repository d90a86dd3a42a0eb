import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import fg from 'fast-glob'
import { FlakeproofError } from '../errors.js'
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

/**
 * The folders named by `inputs`: a folder as given, anything else a glob (fast-glob) matching
 * folders, its matches sorted so a merge does not depend on the order the disk lists them in.
 * A folder named twice is merged once.
 */
export function expandMergeInputs(inputs: readonly string[]): string[] {
  const dirs: string[] = []
  for (const input of inputs) {
    if (existsSync(input) && statSync(input).isDirectory()) {
      dirs.push(input)
      continue
    }
    const matched = fg.sync(input, { onlyDirectories: true, dot: true }).sort()
    if (matched.length === 0) {
      throw new FlakeproofError(`${input}: no such folder, and no folder matches it as a glob; quote a glob so the shell leaves it to flakeproof, e.g. "shards/*"`, 'E_INPUT')
    }
    dirs.push(...matched)
  }
  return [...new Set(dirs)]
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
  const version = schemaVersionOf(ratePath)
  if (version !== 1) {
    throw new FlakeproofError(`${dir}: rate.json has schema_version ${JSON.stringify(version)}, this flakeproof reads 1; merge folders written by the same major version`, 'E_INPUT')
  }
  const rate = readJsonFile(ratePath, RateFileSchema, 'input', HINT)
  const factsPath = join(dir, 'facts.jsonl')
  const hasFacts = existsSync(factsPath)
  if (rate.tests === undefined) return { dir, kind: 'command', rate, facts: hasFacts ? readJsonLinesFile(factsPath, FactSchema, 'input', HINT) : null }
  if (!hasFacts) {
    throw new FlakeproofError(`${dir}: no facts.jsonl, so its rounds cannot be lined up with the other folders; keep facts.jsonl with rate.json when collecting shard outputs`, 'E_INPUT')
  }
  return { dir, kind: 'test', rate, tests: indexTestFacts(factsPath, 'input', HINT) }
}

// --- internal ---

function schemaVersionOf(path: string): unknown {
  try {
    return (JSON.parse(readFileSync(path, 'utf8')) as { schema_version?: unknown }).schema_version
  } catch {
    // Unreadable or not JSON: the schema check that follows names the problem.
    return 1
  }
}
