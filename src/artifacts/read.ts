import { readFileSync } from 'node:fs'
import type * as z from '../_zod.js'
import { FlakeproofError } from '../errors.js'
import { lineSchema, safeParseWhole } from './_compiled-schema.js'
import { type Fact, FactSchema } from './schemas.js'

/**
 * Reads and validates a JSON artifact. Every failure is one line that names the flag, the file and
 * the first problems found, e.g. `--from out/rate.json: trials: expected number, received string`.
 */
export function readJsonFile<S extends z.ZodType>(path: string, schema: S, flag: string, givenHint: string): z.output<S> {
  const hint = withoutFinalPeriod(givenHint)
  const text = readText(path, flag, hint)
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch (error) {
    throw new FlakeproofError(`${flag} ${path}: not valid JSON${whereJsonBroke(text, error)}. ${hint}`, 'E_INPUT')
  }
  const result = safeParseWhole(schema, data)
  if (!result.success) {
    throw new FlakeproofError(`${flag} ${path}: ${describeIssues(result.error)}. ${hint}`, 'E_INPUT')
  }
  return result.data
}

/** Reads facts.jsonl; a line that is not a valid fact is reported by its line number. */
export function readFactsFile(path: string, flag: string): Fact[] {
  const hint = 'Pass a facts.jsonl written by `flakeproof collect`'
  const facts = readJsonLinesFile(path, FactSchema, flag, hint)
  if (facts.length === 0) throw new FlakeproofError(`${flag} ${path}: holds no trials. ${hint}`, 'E_INPUT')
  return facts
}

/** Reads a JSON-lines file, each line validated; a bad line is reported by its number. */
export function readJsonLinesFile<S extends z.ZodType>(path: string, schema: S, flag: string, hint: string): z.output<S>[] {
  const parsed: z.output<S>[] = []
  for (const [index, line] of readText(path, flag, hint).split('\n').entries()) {
    if (line.trim() !== '') parsed.push(parseJsonLine(line, schema, `${flag} ${path}: line ${index + 1}`, hint))
  }
  return parsed
}

/**
 * One line of a JSON-lines file, validated; `where` names the flag, file and line in the error.
 * `where` may be a function, called only for a bad line. `checked`: the schema checked by hand (_fact-check.ts), exact, giving the value the schema would
 * give, or undefined for the schema to decide.
 */
export function parseJsonLine<S extends z.ZodType>(line: string, schema: S, where: string | (() => string), hint: string, checked?: (data: unknown) => z.output<S> | undefined): z.output<S> {
  let data: unknown
  try {
    data = JSON.parse(line)
  } catch {
    throw new FlakeproofError(`${placeOf(where)} is not valid JSON. ${hint}`, 'E_INPUT')
  }
  const fast = checked?.(data)
  if (fast !== undefined) return fast
  // Files of a million lines: past the first few hundred, the compiled schema (same results, same issues).
  const result = lineSchema(schema).safeParse(data)
  if (!result.success) throw new FlakeproofError(`${placeOf(where)}: ${describeIssues(result.error)}. ${hint}`, 'E_INPUT')
  return result.data
}

/** A place given as a function is named only when a line is bad: a million good lines build no text. */
function placeOf(where: string | (() => string)): string {
  return typeof where === 'string' ? where : where()
}

/** The first three issues of a zod error on one line: `trials: expected number; rate: too big`. */
export function describeIssues(error: z.ZodError): string {
  const shown = error.issues.slice(0, 3).map((issue) => {
    const where = issue.path.length > 0 ? `${issue.path.join('.')}: ` : ''
    return `${where}${issue.message}`
  })
  const more = error.issues.length > 3 ? ` (and ${error.issues.length - 3} more)` : ''
  return `${shown.join('; ')}${more}`
}

// --- internal ---

/**
 * ` (at line 2, column 5)` when the parser says where, else nothing: never its own words, which
 * quote the file (`Unexpected token 'p', "password=h"...`), and the file may not be meant to be shown.
 */
function whereJsonBroke(text: string, error: unknown): string {
  const at = /at position (\d+)/.exec((error as Error).message)?.[1]
  if (at === undefined) return ''
  const before = text.slice(0, Number(at)).split('\n')
  return ` (at line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1})`
}

/** Messages end without a period: the CLI adds `. See …` after them (it once printed `..`). */
function withoutFinalPeriod(hint: string): string {
  return hint.replace(/\.+$/, '')
}

function readText(path: string, flag: string, hint: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const reason = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a folder' : (code ?? 'unreadable')
    throw new FlakeproofError(`${flag} ${path}: cannot read it (${reason}). ${hint}`, 'E_INPUT', { cause: error })
  }
}
