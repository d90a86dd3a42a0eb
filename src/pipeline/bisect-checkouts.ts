import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { makeTempFolder, removeTempFolder } from '../artifacts/temp-folder.js'
import { runShellCommand } from '../runner/_spawn.js'
import { git } from '../runner/git.js'

/** The prefix of bisect's temporary folder under the OS temp folder. */
export const BISECT_TEMP_PREFIX = 'flakeproof-bisect-'

/** Checkouts kept at once, each with its own installed dependencies; the least recently used is reused past this. */
const MAX_CHECKOUTS = 4

export interface Prepared {
  dir: string
  /** How long `--setup` took here, when it ran for this visit; null when an earlier setup served. */
  setupMs: number | null
}

export type PrepareResult = Prepared | { error: string }

/**
 * Bisect's only writes outside its output folder: temporary `git worktree`s under one folder of the
 * OS temp folder (plus git's own records of them in the repository's .git/worktrees), all removed by
 * `dispose`. The user's checkout, index and HEAD are never touched: every commit is checked out in
 * a worktree of ours. `--setup` runs once per setup key (same lockfiles, same installed
 * dependencies); a commit with a key already set up is checked out in that worktree, whose
 * ignored files (node_modules) stay.
 */
export class Checkouts {
  readonly root: string
  private readonly _repo: string
  private readonly _setup: string | undefined
  private readonly _abort: AbortSignal
  private readonly _worktrees: { dir: string; key: string | undefined; sha: string; usedAt: number }[] = []
  private _uses = 0

  private readonly _prefix: string

  /** `prefix`: the folder, relative to the top, that commands run in (where the user ran bisect). */
  constructor(repo: string, prefix: string, setup: string | undefined, abort: AbortSignal) {
    this._repo = repo
    this._prefix = prefix
    this._setup = setup
    this._abort = abort
    this.root = makeTempFolder(BISECT_TEMP_PREFIX)
  }

  /** The folder to run in, holding `sha`, set up for `key`; or why it could not be had. */
  async prepare(sha: string, key: string): Promise<PrepareResult> {
    try {
      let tree = this._worktrees.find((w) => w.key === key || this._setup === undefined)
      if (!tree && this._worktrees.length < MAX_CHECKOUTS) {
        const dir = join(this.root, `checkout-${this._worktrees.length + 1}`)
        await git(['worktree', 'add', '--quiet', '--detach', dir, sha], this._repo)
        tree = { dir, key: undefined, sha, usedAt: 0 }
        this._worktrees.push(tree)
      } else if (!tree) {
        tree = this._worktrees.reduce((a, b) => (a.usedAt <= b.usedAt ? a : b))
        tree.key = undefined
      }
      if (tree.sha !== sha) {
        await git(['checkout', '--quiet', '--force', '--detach', sha], tree.dir)
        // Files the previous commit's run left behind (but not ignored ones: installed dependencies stay).
        await git(['clean', '-fdq'], tree.dir)
        tree.sha = sha
      }
      tree.usedAt = ++this._uses
      const dir = join(tree.dir, this._prefix)
      if (!existsSync(dir)) return { error: `${this._prefix} does not exist at this commit` }
      if (this._setup === undefined || tree.key === key) return { dir, setupMs: null }
      const started = performance.now()
      const result = await runShellCommand(this._setup, { timeoutMs: null, abort: this._abort, cwd: dir })
      if (result.aborted) return { error: '--setup was stopped' }
      if (result.exitCode !== 0) {
        const tail = lastLine(result.stderr) ?? lastLine(result.stdout) ?? ''
        return { error: `--setup failed (${result.signal ? `killed by ${result.signal}` : `exit code ${result.exitCode}`})${tail ? `: ${tail}` : ''}` }
      }
      tree.key = key
      return { dir, setupMs: performance.now() - started }
    } catch (error) {
      return { error: (error as Error).message }
    }
  }

  /**
   * Removes every worktree (git forgets it too), then the temporary folder. Runs after Ctrl-C and
   * SIGTERM as well; a worktree git cannot remove is deleted with the folder and pruned from git's records.
   */
  async dispose(): Promise<void> {
    let pruneNeeded = false
    for (const { dir } of this._worktrees) {
      try {
        await git(['worktree', 'remove', '--force', '--force', dir], this._repo)
      } catch {
        pruneNeeded = true
      }
    }
    removeTempFolder(this.root, BISECT_TEMP_PREFIX)
    // Only records whose folder is gone are pruned, and ours now are.
    if (pruneNeeded) await git(['worktree', 'prune'], this._repo).catch(() => undefined)
  }
}

function lastLine(text: string): string | undefined {
  return text.trim().split('\n').at(-1)?.trim() || undefined
}
