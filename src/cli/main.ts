import { readFileSync } from 'node:fs'
import { constants } from 'node:os'
import { dirname } from 'node:path'
import { parseArgs } from 'node:util'
import * as z from '../_zod.js'
import { acquireFileLock, acquireOutputLock, type OutputLock } from '../artifacts/lock.js'
import { assertReplaceable } from '../artifacts/write.js'
import { stripAnsi } from '../core/ansi.js'
import type { RunnerCommand } from './runner-commands.js'
import type { ProcessEnding } from '../session/runner-adapter.js'
import { FlakeproofError, flakeproofErrorIn } from '../errors.js'
import { describeRate } from '../core/rate.js'
import { logJson, logLine } from '../core/workflow-command.js'
import { joinShellWords } from '../core/shell-words.js'
import { ownFile } from '../own-files.js'
import { helpWidth, renderOverview as renderHelpOverview, unknownCommand, unknownFlag } from './help.js'
import type { CommandSpec } from './spec.js'
import { cannotLoadLine } from './load-failure.js'
import { createTerminalContext, type TerminalContext } from './terminal.js'

/**
 * Every command, in the order `flakeproof --help` lists them, each loaded only when it runs: start-up
 * pays for one command's modules, not for every schema, renderer and parser (bench/startup.mjs).
 * A new command is one line here.
 */
const COMMANDS: Readonly<Record<string, () => Promise<CommandSpec>>> = {
  measure: async () => (await import('./commands/measure.js')).measure,
  plan: async () => (await import('./commands/plan.js')).plan,
  collect: async () => (await import('./commands/collect.js')).collect,
  facts: async () => (await import('./commands/facts.js')).facts,
  observe: async () => (await import('./commands/observe.js')).observe,
  policy: async () => (await import('./commands/policy.js')).policy,
  proof: async () => (await import('./commands/proof.js')).proof,
  report: async () => (await import('./commands/report.js')).report,
  investigate: async () => (await import('./commands/investigate.js')).investigate,
  schema: async () => (await import('./commands/schema.js')).schema,
  repeat: async () => (await import('./commands/repeat.js')).repeat,
  ingest: async () => (await import('./commands/ingest.js')).ingest,
  merge: async () => (await import('./commands/merge.js')).merge,
  history: async () => (await import('./commands/history.js')).history,
  bisect: async () => (await import('./commands/bisect.js')).bisect,
  explain: async () => (await import('./commands/explain.js')).explain,
}

/**
 * The only code that decides how flakeproof exits: 0 done, 1 a negative verdict, 2 bad usage or
 * input (one line on stderr, no stack trace, before any trial), 3 the system stopped it (results
 * could not be written, or a trial could not be started; the measured numbers go to stderr), 130
 * interrupted by Ctrl-C, 143 by SIGTERM, 129 by SIGHUP; anything else is a bug and shows its stack.
 * It sets process.exitCode rather than exiting, so a large JSON result is never cut short; a runner
 * command also exits where the runner's own CLI would (endProcess), once its output has gone out.
 */
export async function runMain(argv: readonly string[]): Promise<void> {
  process.exitCode = await main(argv)
}

async function main(argv: readonly string[]): Promise<number> {
  const [name, ...rest] = argv
  // `flakeproof help measure` is `flakeproof measure --help`: one help, reached either way.
  if (name === 'help' && rest[0] !== undefined && !rest[0].startsWith('-')) return main([rest[0], '--help'])
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(await renderOverview())
    return name === undefined ? 2 : 0
  }
  if (name === '--version' || name === '-v') {
    process.stdout.write(`${readVersion()}\n`)
    return 0
  }
  const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined
  if (!load) {
    // The runner commands bring every runner's flag table: loaded only for `flakeproof <runner>`.
    const { RUNNER_COMMANDS } = await import('./runner-commands.js')
    const runner = RUNNER_COMMANDS.find((r) => r.runner.name === name)
    if (runner) return runRunner(runner, rest)
    return usageError(unknownCommand(stripAnsi(name), [...Object.keys(COMMANDS), ...RUNNER_COMMANDS.map((r) => r.runner.name)]))
  }
  let spec: CommandSpec
  try {
    spec = await load()
  } catch (error) {
    // Each command's modules load when it runs: a loader out of files says so in one line, as bin.ts does.
    process.stderr.write(`${await cannotLoadLine(error)}\n`)
    return 3
  }
  // After `--` the words are the command's (`repeat … -- pytest --help`), not a request for help.
  const own = spec.rest === undefined || !rest.includes('--') ? rest : rest.slice(0, rest.indexOf('--'))
  if (own.includes('--help') || own.includes('-h')) {
    // spec.ts reads every command's flag declarations (config/options.ts): `flakeproof vitest` never needs them.
    process.stdout.write((await import('./spec.js')).renderHelp(spec, helpWidth()))
    return 0
  }

  let options: unknown
  try {
    options = parseOptions(spec, rest)
  } catch (error) {
    return usageError(`${spec.name}: ${(error as Error).message}`, spec.name)
  }

  const context = createTerminalContext(process.stderr)
  const locks: OutputLock[] = []
  try {
    const outputs = outputsOf(spec, options)
    for (const { flag, path } of outputs) {
      if (path !== undefined) assertReplaceable(path, flag)
    }
    for (const { flag, value, path, folder } of outputs) locks.push(path === undefined ? acquireOutputLock(folder, `${flag} ${value}`) : acquireFileLock(path, `${flag} ${value}`))
    const code = await spec.run(options, {
      context,
      print: (result) => process.stdout.write(`${logJson(JSON.stringify(result, null, 2), process.env)}\n`),
    })
    return exitCodeOf(code, spec.name, context, options)
  } catch (error) {
    const system = (error as NodeJS.ErrnoException | undefined)?.code
    if (system === 'EMFILE' || system === 'ENFILE') {
      reportStopped(spec.name, `${(error as Error).message}: too many files open; raise the limit (ulimit -n 1024) and run again`, context, options)
      return 3
    }
    if (!(error instanceof FlakeproofError)) throw error
    if (error.code !== 'E_WRITE') return usageError(`${spec.name}: ${error.message}`, spec.name)
    reportStopped(spec.name, `${error.message}: the results are not all on disk`, context, options)
    return 3
  } finally {
    // A folder a lock made stays only if something was written in it: a refusal leaves no trace.
    for (const lock of locks) lock.abandon()
    context.dispose()
  }
}

// --- internal ---

/** `flakeproof <runner>`: its arguments belong to the runner and to its adapter, so they are passed on whole. */
async function runRunner(command: RunnerCommand, args: string[]): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write((await import('./runner-commands.js')).renderRunnerHelp(command, helpWidth()))
    return 0
  }
  try {
    // Loaded only here: each runner is an optional peer dependency.
    const [adapter, { runWrapper }] = await Promise.all([command.load(), import('../session/wrapper.js')])
    const { code, ending } = await runWrapper(adapter, args)
    if (ending) endProcess(code, ending)
    return code
  } catch (error) {
    const code = runnerError(command, error)
    // A runner stopped by an error may still hold the process open (Vitest 3.2 leaves its Vite
    // server up when a config throws), where its own CLI exits.
    exitOnceWritten(code)
    return code
  }
}

/** An error that stopped `flakeproof <runner>`, said in one line: its exit code. Any other error is a bug, thrown on. */
function runnerError(command: RunnerCommand, error: unknown): number {
  const { name } = command.runner
  // A plugin hands its errors to its runner without a stack, ours kept on them.
  const ours = flakeproofErrorIn(error)
  if (ours) return usageError(`${name}: ${ours.message}`, name)
  const own = command.ownError?.(error)
  if (!own) throw error
  if ('usage' in own) return usageError(`${name}: ${own.usage}`, name)
  process.stderr.write(`${own.message}\n`)
  return own.code
}

function parseOptions(spec: CommandSpec, given: string[]): unknown {
  const { args, rest } = splitRest(spec, given)
  let parsed
  try {
    parsed = parseArgs({
      args: attachNegativeValues(spec, args),
      options: Object.fromEntries(spec.flags.map((f) => [f.name, { type: f.placeholder === undefined ? 'boolean' : 'string' }])),
      allowPositionals: spec.name === 'schema' || spec.positionals !== undefined,
      strict: true,
      tokens: true,
    })
  } catch (error) {
    throw new Error(rephraseParseError(error as Error & { code?: string }, spec))
  }
  refuseRepeatedFlags(parsed.tokens)
  const values = spec.positionals ? { ...parsed.values, [spec.positionals]: parsed.positionals } : parsed.values
  const input = spec.name === 'schema' ? { name: parsed.positionals[0] } : withRest(spec, values, rest)
  const result = spec.schema.safeParse(input, z.ONE_PARSE)
  // Each message names its flag, the value received and a fix; the first one is the one to act on.
  if (!result.success) throw new Error(result.error.issues[0]?.message ?? 'invalid flags')
  return result.data
}

/** The words after the first `--`, for a command that takes a command there. */
function splitRest(spec: CommandSpec, args: string[]): { args: string[]; rest: string[] } {
  const dash = spec.rest === undefined ? -1 : args.indexOf('--')
  return dash < 0 ? { args, rest: [] } : { args: args.slice(0, dash), rest: args.slice(dash + 1) }
}

function withRest(spec: CommandSpec, values: Record<string, unknown>, rest: string[]): Record<string, unknown> {
  if (spec.rest === undefined || rest.length === 0) return values
  if (values[spec.rest] !== undefined) throw new Error(`give the command once: after \`--\` or in --${spec.rest}, not both`)
  return { ...values, [spec.rest]: joinShellWords(rest) }
}

/** `--trials -3` means the value -3 (to be rejected with its own message), not a flag `-3`. */
function attachNegativeValues(spec: CommandSpec, args: string[]): string[] {
  const valued = new Set(spec.flags.filter((f) => f.placeholder !== undefined).map((f) => `--${f.name}`))
  const joined: string[] = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string
    const next = args[i + 1]
    if (valued.has(arg) && next !== undefined && /^-\d|^-\.\d/.test(next)) {
      joined.push(`${arg}=${next}`)
      i++
    } else {
      joined.push(arg)
    }
  }
  return joined
}

function rephraseParseError(error: Error & { code?: string }, spec: CommandSpec): string {
  const flag = /'([^']+)'/.exec(error.message)?.[1]
  switch (error.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return flag === undefined ? 'unknown flag' : unknownFlag(flag, spec.flags.map((f) => f.name))
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return `${flag?.split(' ')[0] ?? 'a flag'} needs a value`
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument ${flag ?? ''}; quote a command with spaces: --cmd "npm test"`.trim()
    default:
      return error.message
  }
}

/** A flag given twice would silently be its last value: `--trials 20 … --trials 30` is more likely a mistake. */
function refuseRepeatedFlags(tokens: ReturnType<typeof parseArgs>['tokens']): void {
  const seen = new Map<string, string | undefined>()
  for (const token of tokens ?? []) {
    if (token.kind !== 'option') continue
    if (seen.has(token.name)) {
      const values = token.value === undefined ? '' : ` (${quoted(seen.get(token.name))} and ${quoted(token.value)})`
      throw new Error(`${token.rawName} given twice${values}; give it once`)
    }
    seen.set(token.name, token.value)
  }
}

function quoted(value: string | undefined): string {
  return value !== undefined && /^[^\s"]+$/.test(value) ? value : JSON.stringify(value ?? '')
}

/** Each path the command will write, with its folder: checked and locked before the command runs. */
function outputsOf(spec: CommandSpec, options: unknown): { flag: string; value: string; path?: string; folder: string }[] {
  const values = options as Record<string, unknown>
  return spec.flags.flatMap(({ name, output }) => {
    const value = values[name]
    if (output === undefined || typeof value !== 'string') return []
    const flag = `--${name}`
    return output === 'file' ? [{ flag, value, path: value, folder: dirname(value) }] : [{ flag, value, folder: value }]
  })
}

/** 130 means the trials stopped early; SIGTERM, SIGHUP or a trial that could not start say why. */
function exitCodeOf(code: number, name: string, context: TerminalContext, options: unknown): number {
  const interruption = context.interruption
  if (code !== 130 || interruption === undefined) return code
  if (interruption.kind === 'signal') return 128 + constants.signals[interruption.signal]
  reportStopped(
    name,
    `${interruption.error.message}: the system refused to start a trial, so it is not counted. What finished is written with "complete": false; for EAGAIN or EMFILE, lower --jobs or raise \`ulimit -u\` / \`ulimit -n\`, then run again`,
    context,
    options,
  )
  return 3
}

/** One line saying why, then the numbers measured so far: a run that cannot finish still says what it found. */
function reportStopped(name: string, why: string, context: TerminalContext, options: unknown): void {
  process.stderr.write(`${logLine(`flakeproof ${name}: ${stripAnsi(why)}`, process.env)}\n`)
  const confidence = (options as { confidence?: { value: number } }).confidence?.value ?? 0.95
  for (const { label, done, failures } of context.measured()) {
    const { rate, ci_low, ci_high } = describeRate(failures, done, confidence)
    const percent = (x: number): string => `${(x * 100).toFixed(1)}%`
    process.stderr.write(
      `${logLine(`flakeproof ${name}: measured before it stopped (${label}): ${done} trials, ${failures} failed, rate ${percent(rate)}, ${+(confidence * 100).toFixed(4)}% interval [${percent(ci_low)}, ${percent(ci_high)}]`, process.env)}\n`,
    )
  }
}

/**
 * The process ends with `code` as the runner's CLI ends it (RunOutcome `ending`): at once for `jest
 * --forceExit`, or if it is still running `afterMs` later (`vitest run`'s teardownTimeout), whatever
 * the tests or a global setup left open, once stdout and stderr have taken what was written; or,
 * as `jest` does, it says so after the wait and waits on.
 */
function endProcess(code: number, { afterMs, warning, exits }: ProcessEnding): void {
  if (afterMs === 0 && exits) return exitOnceWritten(code)
  // Unref'd: a process with nothing left open ends by itself, without the wait.
  setTimeout(() => {
    if (warning !== undefined) process.stderr.write(`${warning}\n`)
    if (exits) exitOnceWritten(code)
  }, afterMs).unref()
}

function exitOnceWritten(code: number): void {
  let open = 2
  const written = (): void => {
    if (--open === 0) process.exit(code)
  }
  process.stdout.write('', written)
  process.stderr.write('', written)
}

function usageError(message: string, command?: string): number {
  const help = command === undefined ? 'flakeproof --help' : `flakeproof ${command} --help`
  // Messages may quote a value or a file's text: its escape codes must not reach the terminal.
  const said = stripAnsi(message).replace(/\.$/, '')
  const sentence = said.endsWith('?') ? said : `${said}.`
  process.stderr.write(`${logLine(`flakeproof${command === undefined ? ':' : ''} ${sentence} See \`${help}\`.`, process.env)}\n`)
  return 2
}

/** The overview lists every command's summary, so it loads them all (help is not on a hot path). */
async function renderOverview(): Promise<string> {
  const commands = await Promise.all(Object.values(COMMANDS).map((load) => load()))
  const { RUNNER_COMMANDS } = await import('./runner-commands.js')
  return renderHelpOverview(commands, RUNNER_COMMANDS, helpWidth())
}

function readVersion(): string {
  const pkg = JSON.parse(readFileSync(ownFile('../package.json'), 'utf8')) as { version: string }
  return pkg.version
}
