import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { expect } from 'vitest'
import { BIN, type CliResult, childEnv, ROOT, settle, tempDir } from './utils.js'

/**
 * The hostile matrix (issue 19, item 7): each case builds a scene in a fresh folder, runs the built
 * CLI there with relative paths (so messages are the same on every machine), and is judged on three
 * things: the exact exit code, the exact lines on stderr, and that every file around is as it was
 * (hashed before and after), except the paths the case says it writes.
 */
export interface HostileCase {
  name: string
  /** Builds the scene in `dir` (the CLI's working folder). */
  scene?: (dir: string) => void
  args: string[] | ((dir: string) => string[])
  env?: Record<string, string>
  code: number
  /** Every stderr line, in order: a string is the whole line, a RegExp must match it. */
  stderr: readonly (string | RegExp)[] | ((dir: string) => readonly (string | RegExp)[])
  /** The folder under the scene to run in (a project inside it), default the scene itself. */
  cwd?: string
  /** What node runs instead of the CLI (Vitest's own bin, for a run with the reporter in its config). */
  bin?: string
  /** Paths (relative to the scene) the run may create or change; everything else must be untouched. */
  writes?: readonly string[]
  /** Further checks on what the run left. */
  after?: (dir: string, result: CliResult) => void | Promise<void>
  /** Runs the CLI through this wrapper (`['/bin/sh', '-c', 'ulimit -n 100 && exec "$0" "$@"']`). */
  wrap?: readonly string[]
}

/**
 * Every entry under `dir`, not following links: a file by its sha256, a link by its target, a
 * folder, a FIFO. Two snapshots are equal when nothing was created, removed, replaced or changed.
 */
export function snapshot(dir: string, prefix = ''): Record<string, string> {
  const entries: Record<string, string> = {}
  for (const name of readdirSync(join(dir, prefix)).sort()) {
    const rel = prefix === '' ? name : `${prefix}/${name}`
    const path = join(dir, rel)
    const stats = lstatSync(path)
    if (stats.isSymbolicLink()) entries[rel] = `link → ${readlinkSync(path)}`
    else if (stats.isDirectory()) {
      entries[rel] = 'folder'
      Object.assign(entries, snapshot(dir, rel))
    } else if (stats.isFile()) entries[rel] = `file ${createHash('sha256').update(readFileSync(path)).digest('hex').slice(0, 16)}`
    else entries[rel] = stats.isFIFO() ? 'fifo' : 'special'
  }
  return entries
}

/** The snapshot without the paths a case may write (each path and everything under it). */
function outside(entries: Record<string, string>, writes: readonly string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(entries).filter(([path]) => !writes.some((w) => path === w || path.startsWith(`${w}/`))))
}

/** Runs the built CLI in `cwd`, without GitHub's or this Vitest's variables unless the case sets them. */
export function runCliIn(cwd: string, args: readonly string[], env: Record<string, string> = {}, wrap: readonly string[] = [], bin = BIN): Promise<CliResult> {
  const [command, ...prefix] = [...wrap, process.execPath]
  const child = spawn(command as string, [...prefix, bin, ...args], { cwd, env: { ...childEnv(), CI: 'true', NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  return settle(child)
}

/** Runs one case and checks its exit code, its stderr line by line, and the files around it. */
export async function runHostileCase(c: HostileCase): Promise<{ dir: string; result: CliResult }> {
  const dir = tempDir('flakeproof-hostile-')
  c.scene?.(dir)
  const before = snapshot(dir)
  const args = typeof c.args === 'function' ? c.args(dir) : c.args
  const result = await runCliIn(join(dir, c.cwd ?? ''), args, c.env, c.wrap, c.bin)
  const shown = `exit ${result.code}\nstderr:\n${result.stderr}\nstdout:\n${result.stdout.slice(0, 2000)}`
  expect(result.code, shown).toBe(c.code)
  const lines = result.stderr.split('\n').filter((line) => line !== '')
  const expectedLines = typeof c.stderr === 'function' ? c.stderr(dir) : c.stderr
  expect(lines.length, shown).toBe(expectedLines.length)
  expectedLines.forEach((expected, i) => {
    if (typeof expected === 'string') expect(lines[i], shown).toBe(expected)
    else expect(lines[i], shown).toMatch(expected)
  })
  expect(result.stderr, 'no stack trace').not.toMatch(/\n\s+at /)
  expect(outside(snapshot(dir), c.writes ?? []), 'the files around are untouched').toEqual(outside(before, c.writes ?? []))
  await c.after?.(dir, result)
  return { dir, result }
}

/** `flakeproof <command>: <message>. See \`flakeproof <command> --help\`.`: the one line of a refusal (exit 2). */
export function refusal(command: string, message: string): string {
  // A question (`did you mean --trials?`) ends the sentence itself.
  return `flakeproof ${command}: ${message}${message.endsWith('?') ? '' : '.'} See \`flakeproof ${command} --help\`.`
}

/** Vitest's own command line, for a run with flakeproof's reporter in the project's config. */
export const VITEST_BIN = join(ROOT, 'node_modules/vitest/vitest.mjs')

/**
 * A Vitest project in `dir`: the given files (tests, a config), and Vitest linked in as `npm ci`
 * would install it. Vitest keeps its cache in node_modules/.vite, which every run may write.
 */
export function vitestProject(dir: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    writeFileSync(join(dir, path), text)
  }
  mkdirSync(join(dir, 'node_modules'), { recursive: true })
  symlinkSync(join(ROOT, 'node_modules/vitest'), join(dir, 'node_modules/vitest'))
}

/** Vitest's cache, written by every run of a project made by `vitestProject`. */
export const VITEST_CACHE = 'node_modules/.vite'

/** A refusal's line (exit 2) that says `fragment` somewhere: for messages that quote the system's own words. */
export function refusalContaining(fragment: string): RegExp {
  const quoted = fragment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  return new RegExp(`^flakeproof:? (?:[a-z]+: )?.*${quoted}.*[.?] See \`flakeproof (?:[a-z]+ )?--help\`\\.$`)
}
