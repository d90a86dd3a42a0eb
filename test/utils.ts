import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import type { z } from 'zod'

export const ROOT = resolve(import.meta.dirname, '..')
export const BIN = join(ROOT, 'dist/src/cli/bin.js')
export const LAB = join(ROOT, 'examples/lab/job.js')

export interface CliResult {
  code: number | null
  stdout: string
  stderr: string
}

/** Starts the built CLI (npm test builds first) without waiting for it. */
export function startCli(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): ChildProcess {
  const env = options.env === undefined ? undefined : { ...process.env, ...options.env }
  return spawn(process.execPath, [BIN, ...args], { cwd: options.cwd ?? ROOT, stdio: ['ignore', 'pipe', 'pipe'], ...(env ? { env } : {}) })
}

/** Runs the built CLI to completion (`env`: added to this process's environment). */
export function runCli(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<CliResult> {
  return settle(startCli(args, options))
}

export function settle(child: ChildProcess): Promise<CliResult> {
  return new Promise((done) => {
    let stdout = ''
    let stderr = ''
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    child.on('close', (code) => done({ code, stdout, stderr }))
  })
}

const tempDirs = new Set<string>()

/**
 * A fresh folder per test; the lab's counter lives in one so each test starts at call 1. It lasts
 * until its test file ends (test/setup.ts removes it then, so tests may read it across `it`s);
 * FLAKEPROOF_KEEP_TMP=1 keeps it to look at.
 */
export function tempDir(prefix = 'flakeproof-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  tempDirs.add(dir)
  return dir
}

/** Removes every folder `tempDir` made in this test file; called once the file's tests have ended. */
export function removeTempDirs(): void {
  if (process.env.FLAKEPROOF_KEEP_TMP === '1') return
  for (const dir of tempDirs) {
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 3 })
      tempDirs.delete(dir)
    } catch (error) {
      // A process a test left behind may still write there: leave it, say so, fail nothing.
      console.warn(`could not remove ${dir}: ${(error as Error).message}`)
    }
  }
}

/** Polls until `ready()` holds; the deadline only turns a hang into a failure, it is not what is tested. */
export async function waitFor(what: string, ready: () => boolean): Promise<void> {
  const deadline = Date.now() + 30_000
  while (Date.now() < deadline) {
    if (ready()) return
    await sleep(20)
  }
  throw new Error(`never happened: ${what}`)
}

/** Processes of a process group that are still running, from /proc (Linux); a zombie waiting for its reaper has ended. */
export function liveMembers(pgid: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
        const [state, , group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
        return Number(group) === pgid && state !== 'Z' ? [Number(pid)] : []
      } catch {
        return []
      }
    })
}

/** The lab job with its own state folder, as a shell command. */
export function labCommand(stateDir: string, extra = ''): string {
  return `node ${LAB} --state ${stateDir}${extra ? ` ${extra}` : ''}`
}

/** Reads a JSON artifact and validates it against its schema. */
export function readArtifact<S extends z.ZodType>(path: string, schema: S): z.output<S> {
  return schema.parse(JSON.parse(readFileSync(path, 'utf8')))
}

export const VITEST_FIXTURE = join(ROOT, 'test/fixtures/vitest-flaky')

/**
 * Runs the real Vitest CLI on a fixture project. Vitest's own variables are dropped so the child
 * does not believe it is a worker of the Vitest running this test.
 */
export function runVitest(args: string[], env: Record<string, string> = {}, cwd = VITEST_FIXTURE): Promise<CliResult> {
  return runNodeIn(cwd, [join(ROOT, 'node_modules/vitest/vitest.mjs'), ...args], env)
}

/** Runs `flakeproof vitest …` (the built CLI) on a fixture project. */
export function runFlakeproofVitest(args: string[], env: Record<string, string> = {}, cwd = VITEST_FIXTURE): Promise<CliResult> {
  return runNodeIn(cwd, [BIN, 'vitest', ...args], env)
}

/** Runs `node <args>` in `cwd` with CI=true and without this test run's Vitest variables; `node` is this one unless given. */
export function runNodeIn(cwd: string, args: string[], env: Record<string, string> = {}, node = process.execPath): Promise<CliResult> {
  const child = spawn(node, args, { cwd, env: { ...childEnv(), CI: 'true', NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  return settle(child)
}

/**
 * This process's environment without this test run's Vitest variables, for a child that runs Vitest
 * itself, and without GitHub Actions' (a suite run on GitHub must not annotate its own build; tests
 * that simulate it set them).
 */
export function childEnv(): Record<string, string | undefined> {
  // COLUMNS too: output is laid out for it (src/core/text-layout.ts), and a test's child is not a terminal: 80 unless the test sets it.
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('VITEST') && !key.startsWith('GITHUB_') && key !== 'NODE_ENV' && key !== 'TEST' && key !== 'COLUMNS'))
}
