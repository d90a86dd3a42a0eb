import { spawn } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { parse } from 'yaml'
import { childEnv, type CliResult, settle, tempDir } from './utils.js'

/**
 * Runs a GitHub Actions workflow's `run:` steps locally, as the runner would, without GitHub: each
 * step's script through `bash --noprofile --norc -eo pipefail` (the runner's `shell: bash`), with the
 * runner's variables (GITHUB_ACTIONS, GITHUB_STEP_SUMMARY, GITHUB_OUTPUT, GITHUB_WORKSPACE) and its
 * `${{ … }}` expressions replaced. `actions/upload-artifact` and `actions/download-artifact` copy to and
 * from a local folder so jobs that hand files on (`needs`) work; other `uses:` steps (checkout,
 * setup-node) and `npm ci` are the harness's own job and are skipped. Jobs run in `needs` order, once
 * per matrix combination; after a failed step only `if: always()` steps run, as on GitHub.
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
  env?: Record<string, unknown>
  strategy?: { matrix?: Record<string, unknown> }
  steps?: Step[]
}
export interface Workflow {
  name?: string
  on?: unknown
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
}

export function readWorkflow(path: string): Workflow {
  return parse(readFileSync(path, 'utf8')) as Workflow
}

/** What makes a workflow unrunnable or unsafe, each naming the job and step. */
export function workflowProblems(workflow: Workflow): string[] {
  const problems: string[] = []
  if (!workflow.name) problems.push('no `name`')
  if (workflow.on === undefined) problems.push('no `on` trigger')
  const jobs = Object.entries(workflow.jobs ?? {})
  if (jobs.length === 0) problems.push('no jobs')
  for (const [id, job] of jobs) {
    if (!job['runs-on']) problems.push(`job ${id}: no runs-on`)
    for (const need of [job.needs ?? []].flat()) if (!workflow.jobs?.[need]) problems.push(`job ${id}: needs unknown job ${need}`)
    const steps = job.steps ?? []
    if (steps.length === 0) problems.push(`job ${id}: no steps`)
    steps.forEach((step, index) => {
      const where = `job ${id}, step ${step.name ?? index + 1}`
      if ((step.run === undefined) === (step.uses === undefined)) problems.push(`${where}: exactly one of run and uses`)
      if (step.run === undefined || isInstall(step.run)) return
      if (step.shell !== 'bash') problems.push(`${where}: shell must be bash (its default elsewhere is sh, without pipefail)`)
      if (step.run.trimStart().split('\n')[0]?.trim() !== 'set -euo pipefail') problems.push(`${where}: the script must start with set -euo pipefail`)
      // Script injection: inputs and event text reach the shell as variables, never pasted into it.
      if (/\$\{\{\s*(inputs|github\.event)\./.test(step.run)) problems.push(`${where}: an input is pasted into the script; pass it through env:`)
    })
  }
  return problems
}

/** Runs every job; resolves with each step that ran, in order. */
export async function runWorkflow(workflow: Workflow, options: RunOptions): Promise<StepRun[]> {
  const artifacts = tempDir('flakeproof-artifacts-')
  const runs: StepRun[] = []
  for (const [id, job] of orderByNeeds(workflow.jobs ?? {})) {
    for (const matrix of combinations(job.strategy?.matrix)) {
      runs.push(...(await runJob(workflow, id, job, matrix, artifacts, options)))
    }
  }
  return runs
}

// --- internal ---

const isInstall = (script: string): boolean => script.trim() === 'npm ci'

async function runJob(workflow: Workflow, id: string, job: Job, matrix: Record<string, string>, artifacts: string, options: RunOptions): Promise<StepRun[]> {
  const runner = tempDir('flakeproof-runner-')
  const summary = join(runner, 'step-summary.md')
  const outputs: Record<string, Record<string, string>> = {}
  const evaluate = (text: string): string => substitute(text, (expr) => valueOf(expr, workflow, matrix, outputs, options, runner))
  const base = { ...stringMap(workflow.env, evaluate), ...stringMap(job.env, evaluate) }
  const runs: StepRun[] = []
  let failed = false
  for (const [index, step] of (job.steps ?? []).entries()) {
    const name = step.name ?? step.uses ?? step.run?.split('\n')[0] ?? String(index)
    if (failed && !/always\(\)/.test(step.if ?? '')) continue
    if (step.uses !== undefined) {
      copyArtifact(step, evaluate, artifacts, options.cwd)
      continue
    }
    if (step.run === undefined || isInstall(step.run)) continue
    const script = join(runner, `step-${index}.sh`)
    const output = join(runner, `output-${index}`)
    writeFileSync(script, evaluate(step.run))
    writeFileSync(output, '')
    const env = {
      ...childEnv(),
      NO_COLOR: '1',
      ...options.env,
      GITHUB_ACTIONS: 'true',
      CI: 'true',
      GITHUB_STEP_SUMMARY: summary,
      GITHUB_OUTPUT: output,
      GITHUB_WORKSPACE: options.cwd,
      RUNNER_TEMP: runner,
      ...base,
      ...stringMap(step.env, evaluate),
    }
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], { cwd: options.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
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
    if (part === 'github.workspace') return options.cwd
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
