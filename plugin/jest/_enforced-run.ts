import {
  acquireOutputLock,
  discardRunDir,
  type EnforcedTest,
  type Enforcement,
  type EverydayResult,
  finishEnforcedRun,
  JournalReader,
  loadEnforcement,
  type OutputLock,
  prepareRunDir,
  recordEverydayRun,
  type ResolvedVitestOptions,
  resolveOutDir,
  type RunDir,
  runDirOf,
  RUNNERS,
} from '../../src/session/adapter.js'

/**
 * An enforced Jest run (`--flaky-enforce`, docs/jest.md): the committed policy read before any test
 * (a missing one refused), each test's attempts from the workers' journal (plugin/jest/_repeat.ts
 * retries a listed test up to its budget and turns a quarantined test's last failure into a pass),
 * and at the end the session's judgement (`finishEnforcedRun`: terminal, GitHub, the policy written
 * back with `--flaky-update-policy`) and the run in history, as an everyday run. Jest decides the
 * exit code: a failure beyond its budget fails the run, a quarantined one no longer can.
 */
export class JestEnforcedRun {
  readonly enforcement: Enforcement
  private readonly _root: string
  private readonly _outDir: string
  private readonly _options: ResolvedVitestOptions
  private readonly _command: string
  private readonly _lock: OutputLock
  private readonly _run: RunDir
  private readonly _journal: JournalReader
  private readonly _seen: EnforcedTest[] = []
  private readonly _everyday: EverydayResult[] = []

  constructor(root: string, options: ResolvedVitestOptions, command: string) {
    this._root = root
    this._options = options
    this._command = command
    this.enforcement = loadEnforcement(root, options)
    this._outDir = resolveOutDir(root, options)
    this._lock = acquireOutputLock(this._outDir, `outDir (--flaky-out) ${options.outDir}`)
    this._run = runDirOf(this._outDir)
    prepareRunDir(this._run)
    this._journal = new JournalReader(this._run.journal)
  }

  /** Where the workers write the journal. */
  get journalDir(): string {
    return this._run.journal
  }

  /** A file ended: each of its tests' attempts, from the journal. */
  fileEnded(where: { project: string; file: string }): void {
    const listed = (id: string): boolean => id in this.enforcement.retries || this.enforcement.quarantined.includes(id)
    for (const [id, test] of [...this._journal.read().tests]) {
      if (!test.identity || test.identity.file !== where.file || test.identity.project !== where.project || !test.ended) continue
      this._journal.forget(id)
      const attempts = test.repetitions
      const last = attempts.at(-1)
      if (!last) continue
      const failed = !last.ok
      if (listed(id)) {
        const errors = [...new Set(attempts.filter((a) => !a.ok).map((a) => (a.error ?? '').split('\n')[0] as string))]
        this._seen.push({ id, state: failed ? 'failed' : 'passed', retries: attempts.length - 1, errors })
      }
      const name = test.identity.path.join(' > ')
      this._everyday.push({ id, ...where, name, failed, retries: attempts.length - 1, flaky: false, durationMs: attempts.reduce((sum, a) => sum + a.elapsedMs, 0) })
    }
  }

  /** The run ended: the judgement's lines, the run in history (not when interrupted), the run folder and lock let go. */
  end(interrupted: boolean): string[] {
    try {
      const lines = finishEnforcedRun(this.enforcement, this._seen, { root: this._root, updatePolicy: this._options.updatePolicy, runner: RUNNERS.jest, command: this._command })
      if (this._options.history && !interrupted && this._everyday.length > 0) recordEverydayRun(RUNNERS.jest, this._outDir, this._root, this._everyday)
      return lines
    } finally {
      discardRunDir(this._run)
      this._lock.release()
    }
  }
}
