import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
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
export function startCli(args: string[], options: { cwd?: string } = {}): ChildProcess {
  return spawn(process.execPath, [BIN, ...args], { cwd: options.cwd ?? ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
}

/** Runs the built CLI to completion. */
export function runCli(args: string[], options: { cwd?: string } = {}): Promise<CliResult> {
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

/** A fresh folder per test; the lab's counter lives in one so each test starts at call 1. */
export function tempDir(prefix = 'flakeproof-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix))
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
  const clean = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('VITEST') && key !== 'NODE_ENV' && key !== 'TEST'))
  const child = spawn(node, args, { cwd, env: { ...clean, CI: 'true', NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  return settle(child)
}
