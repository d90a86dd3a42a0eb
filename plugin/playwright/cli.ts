import { spawn } from 'node:child_process'
import { createRequire } from 'node:module'
import { availableParallelism } from 'node:os'
import { join, resolve } from 'node:path'
import {
  assertReplaceable,
  CONDITION_ENV,
  FlakeproofError,
  logLine,
  ownFile,
  type PlannedRound,
  planRounds,
  type ProofSelection,
  type Repetition,
  type ReportedTest,
  type ResolvedVitestOptions,
  resolveJunitPath,
  resolveOutDir,
  type RunError,
  type RunnerAdapter,
  RUNNERS,
  type RunOutcome,
  type TestLocation,
  selectProof,
  startLoad,
  takenOptions,
  TestSession,
  warning,
} from '../../src/session/adapter.js'
import { playwrightConfigDir } from './_config-dir.js'
import { type ChildMessage, type ChildTask, type ListedTest, PLAYWRIGHT_ENV } from './_protocol.js'
import { playwrightVersion } from './_version.js'

const REPORTER = ownFile('plugin/playwright/reporter.js')

/** Playwright's flags that flakeproof sets itself while it measures or proves. */
const OURS = ['--repeat-each', '--retries', '--list', '--ui', '--debug', '--last-failed', '--only-changed']

/**
 * `flakeproof playwright [--flaky-*] [playwright test args]` (docs/playwright.md): Playwright's own
 * CLI in a child process, with the user's config and reporters, and flakeproof's reporter added
 * (`--add-reporter`), which sends each test's evidence back over IPC to one session here. A
 * measurement is `--repeat-each N --retries 0` (configured retries would hide failures), once per
 * whole-run round under its condition (`--workers 1` for serial rounds, spinning processes for
 * load). A proof lists the selection first (`--list`), then runs each group of the policy's tests
 * with the same required count: `--grep` on their exact titles, `--repeat-each` that count,
 * `--project` theirs. An everyday or enforced run is the reporter's alone (plugin/playwright/reporter.ts).
 */
export const playwrightAdapter: RunnerAdapter = {
  runner: RUNNERS.playwright,
  version: () => playwrightVersion(process.cwd()),
  async prepare(args, command) {
    const cli = playwrightCli(process.cwd())
    const rest = args[0] === 'test' ? args.slice(1) : [...args]
    return (options) => runPlaywright({ cli, args: rest, command, version: playwrightVersion(process.cwd()) }, options)
  },
}

// --- internal ---

interface Playwright {
  cli: string
  args: string[]
  command: string
  version: string | undefined
}

/** What one child run of Playwright said, and how it ended. */
interface ChildRun {
  code: number
  begun: boolean
  listed: ListedTest[]
  /** Its `end` message; undefined when Playwright exited without one. */
  end: Extract<ChildMessage, { kind: 'end' }> | undefined
}

async function runPlaywright(pw: Playwright, options: ResolvedVitestOptions | undefined): Promise<RunOutcome> {
  const outDirOf = (root: string): string => resolveOutDir(root, options ?? { outDir: '.flakeproof', outAnywhere: false })
  // Paths it may not write are refused before Playwright starts, not after a run that wrote nothing.
  const configDir = playwrightConfigDir(process.cwd(), pw.args)
  if (options && configDir !== undefined) {
    resolveOutDir(configDir, options)
    const junit = resolveJunitPath(configDir, options)
    if (junit !== undefined) assertReplaceable(junit, 'junit (--flaky-junit)')
  }
  if (!options || options.enforce) {
    // An everyday or enforced run: the reporter runs the session itself, as when listed in the config.
    const task: ChildTask = { task: 'local', options: options ? takenOptions(RUNNERS.playwright, options) : {}, command: pw.command }
    let root = process.cwd()
    const run = await runChild(pw, [], task, {}, (m) => void (m.kind === 'begin' && (root = m.root)))
    return { code: run.code, outDir: outDirOf(root), testTimeMs: 0 }
  }
  const clash = pw.args.find((arg) => OURS.includes(arg.split('=')[0] as string))
  if (clash) throw new FlakeproofError(`${clash.split('=')[0]}: flakeproof playwright sets it itself while measuring or proving; leave it out`, 'E_USAGE')
  return new Measurement(pw, options).run()
}

/** One measurement or proof: its rounds, each one or more Playwright runs, recorded by one session. */
class Measurement {
  private readonly _pw: Playwright
  private readonly _options: ResolvedVitestOptions
  private _root = process.cwd()
  private _session!: TestSession
  private _proof: ProofSelection | undefined
  /** Tests that failed every repetition so far, and those that passed one: the first are no flake. */
  private readonly _failedAll = new Set<string>()
  private readonly _passedOne = new Set<string>()
  private _testTimeMs = 0
  /** This round's tests so far, their copies' repetitions together. */
  private readonly _copies = new Map<string, { test: ReportedTest; location: TestLocation; copies: { copy: number; repetitions: Repetition[] }[] }>()
  private _warnedSerial = false

  constructor(pw: Playwright, options: ResolvedVitestOptions) {
    this._pw = pw
    this._options = options
  }

  async run(): Promise<RunOutcome> {
    const groups = this._options.proof ? await this._proofGroups() : [{ args: [], repeat: this._options.repeat ?? 1 }]
    if (groups === undefined) return { code: 1, outDir: this._outDir(), testTimeMs: 0 }
    const host = { root: (): string => this._root, log: (line: string): void => void process.stderr.write(`${line}\n`) }
    this._session = new TestSession(host, {
      runner: RUNNERS.playwright,
      version: this._pw.version,
      options: this._options,
      mode: this._proof ? 'proof' : 'measure',
      command: this._pw.command,
      proof: this._proof,
      lockLabel: `flakeproof playwright outDir ${this._options.outDir}`,
      journal: false,
    })
    if (this._proof?.nothingToProve || groups.length === 0) return this._nothingRuns()
    const plan = planRounds(this._options, () => Date.now() % 1_000_000)
    const loadProcs = this._options.loadProcs ?? availableParallelism()
    const codes: number[] = []
    let allOnlyTests = true
    let last: ReturnType<TestSession['end']>
    try {
      for (const round of plan) {
        if (plan.length > 1) this._session.planRound(round, plan.length)
        const ends = await this._round(round, groups, loadProcs, codes)
        if (ends === undefined) return { code: codes.find((c) => c !== 0) ?? 1, outDir: this._outDir(), testTimeMs: this._testTimeMs }
        allOnlyTests &&= ends.every((e) => e.end?.onlyTestsFailed === true || e.code === 0)
        this._recordRound()
        last = this._session.end(this._endOf(ends))
        if (ends.some((e) => e.end?.interrupted !== false)) {
          this._session.endRounds()
          break
        }
      }
    } finally {
      this._session.release()
    }
    return { code: this._code(codes, allOnlyTests, last), outDir: this._outDir(), testTimeMs: this._testTimeMs }
  }

  // --- internal ---

  private _outDir(): string {
    return resolveOutDir(this._root, this._options)
  }

  /**
   * No Playwright run is needed: nothing is quarantined (the session says so and the run passes), or
   * none of the proof's tests is in the selection (they are recorded as not run, and the proof fails).
   */
  private _nothingRuns(): RunOutcome {
    this._session.begin()
    const result = this._session.end({ collected: { modules: new Set(), tests: new Set() }, ending: { kind: 'stopped', cause: 'nothing to run' }, runErrors: [], complete: true })
    this._session.release()
    return { code: result?.proof?.passed === false ? 1 : 0, outDir: this._outDir(), testTimeMs: 0 }
  }

  /** One whole-run round: each group's Playwright run under the round's condition. Undefined when Playwright never began. */
  private async _round(round: PlannedRound, groups: readonly { args: string[]; repeat: number }[], loadProcs: number, codes: number[]): Promise<ChildRun[] | undefined> {
    const ends: ChildRun[] = []
    let begun = false
    for (const group of groups) {
      const serial = round.condition === 'serial' ? ['--workers', '1'] : []
      const args = [...group.args, '--repeat-each', String(group.repeat), '--retries', '0', ...serial]
      const load = round.condition === 'load' ? startLoad(loadProcs) : undefined
      const task: ChildTask = { task: 'forward', mode: this._options.proof ? 'proof' : 'fast' }
      try {
        const run = await runChild(this._pw, args, task, { [CONDITION_ENV]: round.condition }, (message) => {
          if (message.kind === 'begin' && !begun) {
            begun = true
            this._root = message.root
            this._warnIfSerialAlready(message.workers)
            this._session.begin()
          }
          if (message.kind === 'copy') this._copy(message)
        })
        codes.push(run.code)
        ends.push(run)
        if (!run.begun) return begun ? ends : undefined
        if (run.end?.interrupted !== false) break
      } finally {
        load?.stop()
      }
    }
    return ends
  }

  /** A copy's evidence joins its test's for this round; a proof's grep may reach a test it does not prove (a name that reads as another's with its tags): left out. */
  private _copy({ id, copy, test, location }: Extract<ChildMessage, { kind: 'copy' }>): void {
    if (this._proof && !(id in this._proof.runs)) return
    // Its file, as the other runners give theirs: flakeproof runs of the same files at once are counted (docs/proof-strength.md).
    if (!this._copies.has(id)) this._session.files([resolve(this._root, test.file)])
    const known = this._copies.get(id) ?? { test, location, copies: [] }
    known.copies.push({ copy, repetitions: test.evidence.repetitions })
    this._copies.set(id, known)
    for (const repetition of test.evidence.repetitions) {
      this._testTimeMs += repetition.elapsedMs
      if (repetition.ok) {
        this._passedOne.add(id)
        this._failedAll.delete(id)
      } else if (!this._passedOne.has(id)) this._failedAll.add(id)
    }
  }

  /** The round's tests, each with every copy that ran in copy order (workers end them in any order), to the session. */
  private _recordRound(): void {
    for (const [id, { test, location, copies }] of this._copies) {
      const repetitions = copies.sort((a, b) => a.copy - b.copy).flatMap((c) => c.repetitions)
      this._session.record(id, repetitions.length > 0 ? { ...test, evidence: { ...test.evidence, repetitions } } : undefined, location)
    }
    this._copies.clear()
  }

  /** The round's end as the session takes it: every Playwright run's files and tests, errors, and whether all ran whole. */
  private _endOf(ends: readonly ChildRun[]): Parameters<TestSession['end']>[0] {
    const modules = new Set(ends.flatMap((e) => e.end?.modules ?? []))
    const tests = new Set(ends.flatMap((e) => e.end?.tests ?? []))
    const runErrors: RunError[] = ends.flatMap((e) => e.end?.runErrors ?? [])
    for (const e of ends) if (e.begun && !e.end) runErrors.push({ project: null, file: null, error: `Playwright exited (code ${e.code}) before the run ended` })
    const interrupted = ends.some((e) => e.end?.interrupted === true)
    const complete = ends.every((e) => e.end !== undefined && !e.end.interrupted)
    return { collected: { modules, tests }, ending: interrupted ? { kind: 'interrupted' } : { kind: 'stopped', cause: 'Playwright stopped' }, runErrors, complete }
  }

  /**
   * A measurement's failed copies are advisory (as with Vitest and Jest) when the run is whole, every
   * test that failed also passed, and Playwright failed only over tests; a failed proof is 1.
   */
  private _code(codes: readonly number[], onlyTests: boolean, result: ReturnType<TestSession['end']>): number {
    const failed = codes.find((c) => c !== 0)
    if (failed === undefined) return result?.proof?.passed === false ? 1 : 0
    if (!onlyTests) return failed
    if (this._options.proof) return result?.proof?.passed === true ? 0 : 1
    const advisory = result?.bundle?.rate.complete === true && this._failedAll.size === 0 && !this._options.failOnFlaky
    return advisory ? 0 : failed
  }

  /**
   * A proof's runs: the selection listed (`--list`) for each test's exact grep, then one group per
   * required count, each its tests' grep and their projects (unless the arguments name projects).
   */
  private async _proofGroups(): Promise<{ args: string[]; repeat: number }[] | undefined> {
    const listed: ListedTest[] = []
    const run = await runChild(this._pw, ['--list'], { task: 'list' }, {}, (message) => {
      if (message.kind === 'begin') this._root = message.root
      if (message.kind === 'listed') listed.push(...message.tests)
    })
    if (!run.begun) return undefined
    const proof = selectProof({ runner: RUNNERS.playwright, command: this._pw.command, version: this._pw.version }, this._root, this._outDir(), this._options)
    this._proof = proof
    const byRuns = new Map<number, ListedTest[]>()
    for (const test of listed) {
      const runs = proof.runs[test.id]
      if (runs !== undefined) byRuns.set(runs, [...(byRuns.get(runs) ?? []), test])
    }
    const namesProjects = this._pw.args.some((arg) => arg === '--project' || arg.startsWith('--project='))
    return [...byRuns].map(([repeat, tests]) => {
      const projects = namesProjects ? [] : [...new Set(tests.map((t) => t.project))].filter((p) => p !== '').map((p) => `--project=${p}`)
      return { args: ['--grep', `/${tests.map((t) => t.grep).join('|')}/`, ...projects], repeat }
    })
  }

  /** Serial rounds compare with parallel ones only if the parallel ones have more than one worker. */
  private _warnIfSerialAlready(workers: number): void {
    if (!this._options.divergence || workers > 1 || this._warnedSerial) return
    this._warnedSerial = true
    process.stderr.write(`${logLine(warning('[flakeproof] --flaky-divergence: Playwright runs on one worker here already, so parallel and serial rounds are alike; pass --workers=<n> (n >= 2) to compare them'), process.env)}\n`)
  }
}

/**
 * One Playwright run in a child process: our reporter added, the task in the environment, its
 * messages handed to `on` as they come. SIGINT reaches it from the terminal as it reaches us (one
 * process group): we wait for it to stop and report. SIGTERM is passed on.
 */
function runChild(pw: Playwright, extra: readonly string[], task: ChildTask, env: Record<string, string>, on: (message: ChildMessage) => void): Promise<ChildRun> {
  const child = spawn(process.execPath, [pw.cli, 'test', ...pw.args, ...extra, '--add-reporter', REPORTER], {
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, ...env, [PLAYWRIGHT_ENV]: JSON.stringify(task) },
  })
  const run: ChildRun = { code: 1, begun: false, listed: [], end: undefined }
  child.on('message', (message: ChildMessage) => {
    if (message.kind === 'begin') run.begun = true
    if (message.kind === 'end') run.end = message
    on(message)
  })
  const ignore = (): void => {}
  const pass = (): void => void child.kill('SIGTERM')
  process.on('SIGINT', ignore)
  process.on('SIGTERM', pass)
  return new Promise((done, fail) => {
    child.on('error', fail)
    child.on('close', (code, signal) => {
      process.removeListener('SIGINT', ignore)
      process.removeListener('SIGTERM', pass)
      done({ ...run, code: code ?? 128 + (signal === 'SIGINT' ? 2 : 15) })
    })
  })
}

/** The project's Playwright Test CLI (not ours). */
function playwrightCli(cwd: string): string {
  try {
    return createRequire(join(cwd, 'package.json')).resolve('@playwright/test/cli')
  } catch {
    throw new FlakeproofError('Playwright Test is not installed here; `npm i -D @playwright/test`', 'E_USAGE')
  }
}
