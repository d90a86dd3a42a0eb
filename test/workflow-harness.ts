import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { parse } from 'yaml'
import { childEnv, type CliResult, settle, tempDir } from './utils.js'

/**
 * Runs a GitHub Actions workflow's `run:` steps locally, as the runner would, without GitHub: each
 * step's script through `bash --noprofile --norc -eo pipefail` (the runner's `shell: bash`), with the
 * runner's variables (GITHUB_ACTIONS, GITHUB_STEP_SUMMARY, GITHUB_OUTPUT, GITHUB_WORKSPACE) and its
 * `${{ … }}` expressions replaced. `actions/upload-artifact` and `actions/download-artifact` copy to and
 * from a local folder so jobs that hand files on (`needs`) work, and `actions/cache/restore` and
 * `actions/cache/save` to and from a cache folder that outlives one workflow (`RunOptions.cache`), so
 * what a nightly run saves a later run restores; other `uses:` steps (checkout,
 * setup-node) and `npm ci` are the harness's own job and are skipped. Jobs run in `needs` order, once
 * per matrix combination; after a failed step only `if: always()` steps run, and a job whose needed
 * jobs did not all succeed is skipped unless its `if` holds `always()` or `!cancelled()`, as on GitHub.
 * A job waits for one of the harness's runners (RUNNERS, shared by every workflow run of the test
 * file) and holds it for all its steps. A job runs in the checkout given (RunOptions.cwd, where the
 * test reads what it left), except a matrix's combinations: they run at once, as on GitHub, each on
 * its own runner in its own copy of the checkout as the workflow found it, so what one leaves there
 * reaches another job only through an artifact.
 */

export interface Step {
  id?: string
  name?: string
  uses?: string
  run?: string
  shell?: string
  if?: string
  env?: Record<string, unknown>
  with?: Record<string, unknown>
}
export interface Job {
  'runs-on'?: unknown
  needs?: string | string[]
  if?: string
  'timeout-minutes'?: number
  env?: Record<string, unknown>
  strategy?: { matrix?: Record<string, unknown> }
  steps?: Step[]
}
export interface Workflow {
  name?: string
  on?: unknown
  permissions?: unknown
  concurrency?: unknown
  env?: Record<string, unknown>
  jobs?: Record<string, Job>
}

export interface StepRun extends CliResult {
  job: string
  step: string
  matrix: Record<string, string>
  /** The job's $GITHUB_STEP_SUMMARY. */
  summary: string
}

export interface RunOptions {
  /** The project the steps run in (the checkout). */
  cwd: string
  /** Added to every step's environment. */
  env: Record<string, string>
  /** Values for expressions, by their text (`inputs.count`), before the defaults below. */
  expressions: Record<string, string>
  /**
   * Jobs (by id and matrix) that fail before their first step, as a lost runner or a job's
   * `timeout-minutes` would end them: nothing they would have uploaded exists.
   */
  lost?: (job: string, matrix: Record<string, string>) => boolean
  /** actions/cache's store, shared by the workflows given the same folder; a fresh one otherwise. */
  cache?: string
  /**
   * How `npx <name> …` runs. 'npm' (the default): npm's own npx. 'installed': the harness's stand-in
   * for what npx does with a package `npm ci` installed (the only way the examples use it): run the
   * nearest node_modules/.bin/<name>, with that folder first on PATH; a name not installed fails, as
   * npx offline does. It spares each call npm's own start-up (0.6 s of CPU on a 2-core machine).
   */
  npx?: 'npm' | 'installed'
  /** Matrix combinations already run by another workflow run given the same map: see JobRuns. */
  reuse?: JobRuns
}

/**
 * The runs of matrix combinations, shared by the workflow runs given the same map: a combination whose
 * job reads nothing from other jobs or runs (no download-artifact, no cache step), given the same
 * workflow, matrix values, environment, expressions, npx and checkout content (node_modules aside) as
 * one already run, is not run again: its steps' results are reported and its uploads handed on again.
 * For jobs whose outcome those inputs decide (a fixture counting its calls, never the clock).
 */
export type JobRuns = Map<string, Promise<{ steps: StepRun[]; uploads: string }>>

export function readWorkflow(path: string): Workflow {
  return parse(readFileSync(path, 'utf8')) as Workflow
}

/**
 * The newest major of each action the examples use (their release notes: checkout v7 and setup-node
 * v7 in 2026, upload-artifact v7, download-artifact v8, cache v6), all on the Node 24 runtime: an
 * example a user copies must not start on an action GitHub already warns about.
 */
export const CURRENT_ACTIONS: Readonly<Record<string, number>> = {
  'actions/checkout': 7,
  'actions/setup-node': 7,
  'actions/upload-artifact': 7,
  'actions/download-artifact': 8,
  'actions/cache': 6,
  'actions/cache/restore': 6,
  'actions/cache/save': 6,
}

/** Node.js majors a copied workflow may run: maintained ones that Vitest 4 and 5 support. */
const NODE_VERSIONS = ['22', '24']

/** What makes a workflow unrunnable, unsafe or not ready to copy, each naming the job and step. */
export function workflowProblems(workflow: Workflow): string[] {
  const problems: string[] = []
  if (!workflow.name) problems.push('no `name`')
  if (workflow.on === undefined) problems.push('no `on` trigger')
  if (workflow.permissions === undefined) problems.push('no `permissions` (the token would get the repository default, often write)')
  if (workflow.concurrency === undefined) problems.push('no `concurrency` (two runs on one branch would race)')
  const jobs = Object.entries(workflow.jobs ?? {})
  if (jobs.length === 0) problems.push('no jobs')
  for (const [id, job] of jobs) {
    if (!job['runs-on']) problems.push(`job ${id}: no runs-on`)
    if (job['timeout-minutes'] === undefined) problems.push(`job ${id}: no timeout-minutes (GitHub's default is 6 hours)`)
    for (const need of [job.needs ?? []].flat()) {
      if (!workflow.jobs?.[need]) problems.push(`job ${id}: needs unknown job ${need}`)
      // A job after a matrix gathers its results: one failed combination must not skip it.
      else if (workflow.jobs[need]?.strategy?.matrix !== undefined && !/!\s*cancelled\(\)|always\(\)/.test(job.if ?? '')) {
        problems.push(`job ${id}: needs the matrix job ${need} without \`if: \${{ !cancelled() }}\`, so one failed combination loses them all`)
      }
    }
    const steps = job.steps ?? []
    if (steps.length === 0) problems.push(`job ${id}: no steps`)
    steps.forEach((step, index) => {
      const where = `job ${id}, step ${step.name ?? index + 1}`
      if ((step.run === undefined) === (step.uses === undefined)) problems.push(`${where}: exactly one of run and uses`)
      if (step.uses !== undefined) problems.push(...actionProblems(step, where, workflow, job))
      if (step.run === undefined || isInstall(step.run)) return
      if (step.shell !== 'bash') problems.push(`${where}: shell must be bash (its default elsewhere is sh, without pipefail)`)
      if (step.run.trimStart().split('\n')[0]?.trim() !== 'set -euo pipefail') problems.push(`${where}: the script must start with set -euo pipefail`)
      // Any expression reaches the shell as a variable (env:), never pasted into the script's text.
      if (/\$\{\{/.test(step.run)) problems.push(`${where}: an expression is pasted into the script; pass it through env:`)
    })
  }
  return problems
}

/** A job's outcome, as `needs` sees it: every combination of its matrix succeeded, one failed, or it did not run. */
export type JobResult = 'success' | 'failure' | 'skipped'

/** Runs every job; resolves with each step that ran, in order, and each job's outcome. */
export async function runWorkflow(workflow: Workflow, options: RunOptions): Promise<{ steps: StepRun[]; jobs: Record<string, JobResult> }> {
  const stores = { artifacts: tempDir('flakeproof-artifacts-'), cache: options.cache ?? tempDir('flakeproof-cache-') }
  const runs: StepRun[] = []
  const results: Record<string, JobResult> = {}
  const jobs = orderByNeeds(workflow.jobs ?? {})
  // The checkout as the workflow found it, for the runners of matrix combinations.
  const checkout = jobs.some(([, job]) => combinations(job.strategy?.matrix).length > 1) ? snapshot(options.cwd) : undefined
  for (const [id, job] of jobs) {
    // GitHub skips a job whose needed jobs did not all succeed, unless its `if` asks to run anyway.
    const needed = [job.needs ?? []].flat().map((need) => results[need])
    const anyway = /always\(\)|!\s*cancelled\(\)/.test(job.if ?? '')
    if (!anyway && needed.some((r) => r !== 'success')) {
      results[id] = 'skipped'
      continue
    }
    const matrices = combinations(job.strategy?.matrix)
    const ran = await Promise.all(
      matrices.map((matrix) => {
        if (options.lost?.(id, matrix)) return undefined
        if (checkout === undefined || matrices.length === 1) return onRunner(() => runJob(workflow, id, job, matrix, options.cwd, stores, options))
        return runCombination(workflow, id, job, matrix, checkout, stores, options)
      }),
    )
    // Reported in the matrix's order, whichever combination ended first.
    for (const steps of ran) runs.push(...(steps ?? []))
    results[id] = ran.every((steps) => steps !== undefined && steps.every((r) => r.code === 0)) ? 'success' : 'failure'
  }
  return { steps: runs, jobs: results }
}

// --- internal ---

/** An action at an old major, a Node.js version out of support, an artifact kept for GitHub's 90 days. */
function actionProblems(step: Step, where: string, workflow: Workflow, job: Job): string[] {
  const [action = '', ref = ''] = (step.uses ?? '').split('@')
  const problems: string[] = []
  const current = CURRENT_ACTIONS[action]
  if (current !== undefined && ref !== `v${current}`) problems.push(`${where}: ${action}@${ref}, not its current major v${current}`)
  if (action === 'actions/setup-node') {
    const given = String(step.with?.['node-version'] ?? '')
    // A literal version, or an expression naming an input or env whose values are all maintained.
    const literal = /^\d+$/.test(given) ? [given] : nodeVersionsOf(given, workflow, job)
    if (literal.length === 0 || literal.some((v) => !NODE_VERSIONS.includes(v))) problems.push(`${where}: node-version ${given || '(none)'} must be one of ${NODE_VERSIONS.join(', ')}`)
  }
  if (action === 'actions/upload-artifact' && step.with?.['retention-days'] === undefined) problems.push(`${where}: no retention-days (GitHub keeps artifacts 90 days by default)`)
  return problems
}

/** The versions `${{ inputs.node }}` or `${{ env.NODE_VERSION }}` can take: the input's options, the env's value. */
function nodeVersionsOf(expression: string, workflow: Workflow, job: Job): string[] {
  const inner = /^\$\{\{\s*(.*?)\s*\}\}$/.exec(expression)?.[1]
  if (inner === undefined) return []
  const inputs = (workflow.on as { workflow_dispatch?: { inputs?: Record<string, { options?: unknown[]; default?: unknown }> } } | undefined)?.workflow_dispatch?.inputs
  return inner.split('||').flatMap((part) => {
    const term = part.trim()
    if (/^'\d+'$|^\d+$/.test(term)) return [term.replaceAll("'", '')]
    const input = /^inputs\.(\w+)$/.exec(term)?.[1]
    if (input !== undefined) return (inputs?.[input]?.options ?? [inputs?.[input]?.default]).map(String)
    const env = /^env\.(\w+)$/.exec(term)?.[1]
    const value = env === undefined ? undefined : (job.env?.[env] ?? workflow.env?.[env])
    return value === undefined ? ['?'] : nodeVersionsOf(String(value).startsWith('${{') ? String(value) : `\${{ '${String(value)}' }}`, workflow, job)
  })
}

const isInstall = (script: string): boolean => script.trim() === 'npm ci'

/**
 * Runners the harness has. A job mostly starts Node.js processes one after another (Vitest, the CLI),
 * each waiting on its start-up: 4 jobs at once keep a 2-core machine's cores busy without so many
 * that each crawls.
 */
const RUNNERS = 4
let idleRunners = RUNNERS
const waitingJobs: (() => void)[] = []

/** `work` once a runner is free (first come, first served), which it holds until `work` ends. */
async function onRunner<T>(work: () => Promise<T>): Promise<T> {
  if (idleRunners > 0) idleRunners--
  else await new Promise<void>((start) => waitingJobs.push(start))
  try {
    return await work()
  } finally {
    const next = waitingJobs.shift()
    if (next) next()
    else idleRunners++
  }
}

interface Checkout {
  dir: string
  /** What decides a job's outcome in it: every file's path and content, node_modules aside (installed alike). */
  fingerprint: string
}

function snapshot(cwd: string): Checkout {
  const dir = freshCopy(cwd)
  const hash = createHash('sha256')
  const walk = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = join(folder, entry.name)
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules') walk(path)
      } else if (entry.isFile()) hash.update(`${relative(dir, path)}\0`).update(readFileSync(path)).update('\0')
      else if (entry.isSymbolicLink()) hash.update(`${relative(dir, path)}\0-> ${readlinkSync(path)}\0`)
    }
  }
  walk(dir)
  return { dir, fingerprint: hash.digest('hex') }
}

/** A runner's own checkout; links stay as they are (node_modules/.bin points into node_modules). */
function freshCopy(from: string): string {
  const dir = tempDir('flakeproof-checkout-')
  cpSync(from, dir, { recursive: true, verbatimSymlinks: true })
  return dir
}

/** One matrix combination on a runner of its own, or its earlier run again (RunOptions.reuse). */
async function runCombination(workflow: Workflow, id: string, job: Job, matrix: Record<string, string>, checkout: Checkout, stores: { artifacts: string; cache: string }, options: RunOptions): Promise<StepRun[]> {
  const readsOthers = (job.steps ?? []).some((step) => /^actions\/(download-artifact|cache)\b/.test(step.uses ?? ''))
  if (options.reuse === undefined || readsOthers) return onRunner(() => runJob(workflow, id, job, matrix, freshCopy(checkout.dir), stores, options))
  const key = JSON.stringify([workflow.name, id, matrix, options.env, options.expressions, options.npx ?? 'npm', checkout.fingerprint])
  let run = options.reuse.get(key)
  if (run === undefined) {
    // Its uploads go to a store of its own, handed on to each workflow run that has this combination.
    run = onRunner(async () => {
      const uploads = tempDir('flakeproof-uploads-')
      return { steps: await runJob(workflow, id, job, matrix, freshCopy(checkout.dir), { artifacts: uploads, cache: stores.cache }, options), uploads }
    })
    options.reuse.set(key, run)
  }
  const { steps, uploads } = await run
  cpSync(uploads, stores.artifacts, { recursive: true })
  return steps
}

/**
 * `npx` for RunOptions.npx 'installed': the nearest node_modules/.bin/<name> from the step's folder up,
 * as npm exec finds an installed package's bin, with that folder first on PATH as npm exec puts it.
 */
const INSTALLED_NPX = `#!/bin/sh
name="$1"
case "$name" in
  ''|-*) echo "npx (workflow harness): only npx <installed bin> is modelled, not '$name'" >&2; exit 2 ;;
esac
shift
dir="$PWD"
while [ ! -x "$dir/node_modules/.bin/$name" ]; do
  if [ "$dir" = / ]; then echo "npx (workflow harness): $name is not installed (no node_modules/.bin/$name)" >&2; exit 127; fi
  dir=$(dirname "$dir")
done
PATH="$dir/node_modules/.bin:$PATH" exec "$dir/node_modules/.bin/$name" "$@"
`

async function runJob(workflow: Workflow, id: string, job: Job, matrix: Record<string, string>, cwd: string, stores: { artifacts: string; cache: string }, options: RunOptions): Promise<StepRun[]> {
  const runner = tempDir('flakeproof-runner-')
  const summary = join(runner, 'step-summary.md')
  const outputs: Record<string, Record<string, string>> = {}
  const evaluate = (text: string): string => substitute(text, (expr) => valueOf(expr, workflow, matrix, outputs, options, cwd, runner))
  const tools = join(runner, 'tools')
  if (options.npx === 'installed') {
    mkdirSync(tools)
    writeFileSync(join(tools, 'npx'), INSTALLED_NPX)
    chmodSync(join(tools, 'npx'), 0o755)
  }
  const base = { ...stringMap(workflow.env, evaluate), ...stringMap(job.env, evaluate) }
  const runs: StepRun[] = []
  let failed = false
  for (const [index, step] of (job.steps ?? []).entries()) {
    const name = step.name ?? step.uses ?? step.run?.split('\n')[0] ?? String(index)
    if (failed && !/always\(\)/.test(step.if ?? '')) continue
    if (step.uses !== undefined) {
      copyArtifact(step, evaluate, stores.artifacts, cwd)
      copyCache(step, evaluate, stores.cache, cwd)
      continue
    }
    if (step.run === undefined || isInstall(step.run)) continue
    const script = join(runner, `step-${index}.sh`)
    const output = join(runner, `output-${index}`)
    writeFileSync(script, evaluate(step.run))
    writeFileSync(output, '')
    const env: Record<string, string | undefined> = {
      ...childEnv(),
      NO_COLOR: '1',
      ...options.env,
      GITHUB_ACTIONS: 'true',
      CI: 'true',
      GITHUB_STEP_SUMMARY: summary,
      GITHUB_OUTPUT: output,
      GITHUB_WORKSPACE: cwd,
      RUNNER_TEMP: runner,
      ...base,
      ...stringMap(step.env, evaluate),
    }
    // The stand-in npx comes first on PATH, as setup-node's npm would be.
    if (options.npx === 'installed') env.PATH = `${tools}:${env.PATH ?? ''}`
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
    const result = await settle(child)
    if (step.id) outputs[step.id] = readOutputs(output)
    runs.push({ ...result, job: id, step: name, matrix, summary })
    if (result.code !== 0) failed = true
  }
  return runs
}

/** `${{ expr }}` replaced by its value. */
function substitute(text: string, value: (expr: string) => string): string {
  return text.replace(/\$\{\{\s*(.*?)\s*\}\}/g, (_, expr: string) => value(expr))
}

function valueOf(
  expr: string,
  workflow: Workflow,
  matrix: Record<string, string>,
  outputs: Record<string, Record<string, string>>,
  options: RunOptions,
  cwd: string,
  runner: string,
): string {
  if (expr in options.expressions) return options.expressions[expr] as string
  // GitHub's `a || b`: the first operand that is not empty, false or 0.
  const operands = expr.split('||').map((part) => operand(part.trim()))
  const chosen = operands.find((v) => v !== '' && v !== 'false' && v !== '0') ?? operands.at(-1)
  if (chosen === undefined) throw new Error(`expression \`${expr}\` has no value`)
  return chosen

  function operand(part: string): string {
    if (/^-?\d+(\.\d+)?$|^(true|false)$/.test(part)) return part
    if (/^'.*'$/.test(part)) return part.slice(1, -1)
    const [scope, key, ...rest] = part.split('.')
    if (scope === 'inputs' && key) {
      const inputs = (workflow.on as { workflow_dispatch?: { inputs?: Record<string, { default?: unknown }> } } | undefined)?.workflow_dispatch?.inputs
      const fallback = inputs?.[key]?.default
      if (fallback === undefined) throw new Error(`\`${expr}\`: inputs.${key} has no default; give it in the test's table`)
      return String(fallback)
    }
    if (scope === 'matrix' && key && key in matrix) return matrix[key] as string
    if (scope === 'steps' && key && rest[0] === 'outputs' && rest[1]) return outputs[key]?.[rest[1]] ?? ''
    if (part === 'github.workspace') return cwd
    if (part === 'runner.temp') return runner
    throw new Error(`expression \`${expr}\` is not known to the harness; give its value in the test's table`)
  }
}

function stringMap(map: Record<string, unknown> | undefined, evaluate: (text: string) => string): Record<string, string> {
  return Object.fromEntries(Object.entries(map ?? {}).map(([key, value]) => [key, evaluate(String(value))]))
}

/** name=value lines, as steps write them to $GITHUB_OUTPUT (the heredoc form is not needed here). */
function readOutputs(path: string): Record<string, string> {
  const lines = readFileSync(path, 'utf8').split('\n').filter((line) => line.includes('='))
  return Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]))
}

/**
 * As actions/upload-artifact@v4 and download-artifact@v4 do: an upload keeps its paths relative to
 * their common folder (one folder uploads its contents); a download by `name` unpacks that artifact
 * into `with.path`, by `pattern` each matching artifact into `with.path/<name>/` (all into
 * `with.path` with `merge-multiple`).
 */
function copyArtifact(step: Step, evaluate: (text: string) => string, store: string, cwd: string): void {
  const uses = step.uses ?? ''
  const name = evaluate(String(step.with?.name ?? 'artifact'))
  if (uses.startsWith('actions/upload-artifact@')) {
    const paths = evaluate(String(step.with?.path ?? '')).split('\n').map((p) => p.trim()).filter(Boolean).map((p) => resolve(cwd, p))
    const common = commonFolder(paths)
    for (const from of paths) if (existsSync(from)) cpSync(from, join(store, name, relative(common, from)), { recursive: true })
  } else if (uses.startsWith('actions/download-artifact@')) {
    const to = resolve(cwd, evaluate(String(step.with?.path ?? '.')))
    mkdirSync(to, { recursive: true })
    const pattern = step.with?.pattern === undefined ? undefined : evaluate(String(step.with.pattern))
    if (pattern === undefined) {
      if (existsSync(join(store, name))) cpSync(join(store, name), to, { recursive: true })
      return
    }
    const matches = new RegExp(`^${pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`)
    const merge = String(step.with?.['merge-multiple'] ?? 'false') === 'true'
    for (const artifact of existsSync(store) ? readdirSync(store) : []) {
      if (matches.test(artifact)) cpSync(join(store, artifact), merge ? to : join(to, artifact), { recursive: true })
    }
  }
}

/**
 * As actions/cache/restore and save do for one `path`: save stores it under `key` (an existing
 * key is kept, as GitHub never overwrites a cache entry); restore takes the entry named `key`, else
 * the newest whose name starts with one of `restore-keys` (one per line), and restores nothing when
 * none matches.
 */
function copyCache(step: Step, evaluate: (text: string) => string, store: string, cwd: string): void {
  const uses = step.uses ?? ''
  const key = evaluate(String(step.with?.key ?? ''))
  const path = resolve(cwd, evaluate(String(step.with?.path ?? '')))
  if (uses.startsWith('actions/cache/save@')) {
    if (!existsSync(join(store, key)) && existsSync(path)) cpSync(path, join(store, key), { recursive: true })
  } else if (uses.startsWith('actions/cache/restore@')) {
    const prefixes = evaluate(String(step.with?.['restore-keys'] ?? '')).split('\n').map((p) => p.trim()).filter(Boolean)
    const entries = existsSync(store) ? readdirSync(store).sort((a, b) => statSync(join(store, b)).mtimeMs - statSync(join(store, a)).mtimeMs) : []
    const hit = entries.find((name) => name === key) ?? entries.find((name) => prefixes.some((prefix) => name.startsWith(prefix)))
    if (hit) cpSync(join(store, hit), path, { recursive: true })
  }
}

/** The deepest folder holding every path (a single folder is its own; a single file, its folder). */
function commonFolder(paths: readonly string[]): string {
  if (paths.length === 1) {
    const only = paths[0] as string
    return existsSync(only) && statSync(only).isDirectory() ? only : dirname(only)
  }
  const parts = paths.map((p) => dirname(p).split(sep))
  const first = parts[0] ?? []
  let depth = 0
  while (depth < first.length && parts.every((p) => p[depth] === first[depth])) depth++
  return first.slice(0, depth).join(sep) || sep
}

/** Jobs in an order where each comes after the jobs it needs. */
function orderByNeeds(jobs: Record<string, Job>): [string, Job][] {
  const done = new Set<string>()
  const ordered: [string, Job][] = []
  const visit = (id: string): void => {
    if (done.has(id)) return
    done.add(id)
    for (const need of [jobs[id]?.needs ?? []].flat()) visit(need)
    ordered.push([id, jobs[id] as Job])
  }
  for (const id of Object.keys(jobs)) visit(id)
  return ordered
}

/** Every combination of a matrix's list-valued keys (include/exclude are not modelled). */
function combinations(matrix: Record<string, unknown> | undefined): Record<string, string>[] {
  let result: Record<string, string>[] = [{}]
  for (const [key, values] of Object.entries(matrix ?? {})) {
    if (!Array.isArray(values)) continue
    result = result.flatMap((combination) => values.map((value) => ({ ...combination, [key]: String(value) })))
  }
  return result
}

/** The commands the runner registers (actions/runner ActionCommandManager and its extensions). */
const RUNNER_COMMANDS = new Set(['add-mask', 'add-matcher', 'add-path', 'debug', 'echo', 'endgroup', 'error', 'group', 'notice', 'remove-matcher', 'save-state', 'set-env', 'set-output', 'stop-commands', 'warning'])

/** A workflow command as the runner reads it off a log line. */
export interface WorkflowCommand {
  command: string
  properties: string
  data: string
}

/**
 * Every workflow command GitHub's runner would read in `output`, by its rules (actions/runner
 * src/Runner.Common/ActionCommand.cs): split into lines at CR, LF or CRLF; a line whose text, after
 * leading white space, starts with `::name …::` (v2), or a line holding `##[name …]` anywhere (v1),
 * for a registered name, case-insensitively. `data` is unescaped as the runner does (%0D, %0A, %25).
 */
export function workflowCommands(output: string): WorkflowCommand[] {
  const found: WorkflowCommand[] = []
  const unescape = (text: string) => text.replaceAll('%0D', '\r').replaceAll('%0A', '\n').replaceAll('%25', '%')
  for (const line of output.split(/\r\n|\r|\n/)) {
    // .NET's TrimStart: Unicode white space, U+0085 included (JavaScript's \s leaves it out).
    const text = line.replace(/^[\s\u0085]+/, '')
    const v2 = text.startsWith('::') ? text.indexOf('::', 2) : -1
    if (v2 >= 0) {
      const info = text.slice(2, v2)
      const space = info.indexOf(' ')
      const command = (space < 0 ? info : info.slice(0, space)).toLowerCase()
      if (RUNNER_COMMANDS.has(command)) {
        found.push({ command, properties: space < 0 ? '' : info.slice(space + 1), data: unescape(text.slice(v2 + 2)) })
        continue
      }
    }
    const start = line.indexOf('##[')
    const end = start < 0 ? -1 : line.indexOf(']', start)
    if (end < 0) continue
    const info = line.slice(start + 3, end)
    const command = info.split(' ')[0]?.toLowerCase() ?? ''
    if (RUNNER_COMMANDS.has(command)) found.push({ command, properties: info.slice(command.length + 1), data: unescape(line.slice(end + 1)) })
  }
  return found
}
