import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { type HistoryLimits, type HistoryRecord, HISTORY_LIMITS, writeHistoryRun } from '../artifacts/history.js'

/** One test of an ordinary run, as any runner's reporter sees it. */
export interface HistoryTest {
  id: string
  project: string
  file: string
  name: string
  outcome: HistoryRecord['outcome']
  retries: number
  durationMs: number
  /** failed or flaky: the signature of its first failed attempt (src/core/signature.ts). */
  signature?: string
}

/** Where the run happened: the commit and branch, when known. */
export interface Revision {
  commit: string | null
  branch: string | null
}

/**
 * Appends one ordinary run to `<outDir>/history/` (docs/contracts.md §11) — the one function every
 * reporter calls with plain records. Nothing is written when no test ran. Returns the file written.
 */
export function recordHistory(
  outDir: string,
  tests: readonly HistoryTest[],
  where: { root: string; env: NodeJS.ProcessEnv; now: Date; limits?: HistoryLimits; runner?: string },
): string | undefined {
  if (tests.length === 0) return undefined
  const { commit, branch } = revisionOf(where.env, where.root)
  const at = where.now.toISOString()
  const records: HistoryRecord[] = tests.map((t) => ({
    test_id: t.id,
    project: t.project,
    file: t.file,
    name: t.name,
    outcome: t.outcome,
    retries: t.retries,
    duration_ms: Math.round(t.durationMs * 100) / 100,
    commit,
    branch,
    os: process.platform,
    at,
    ...(t.outcome !== 'passed' && t.signature !== undefined ? { signature: t.signature } : {}),
    ...(where.runner === undefined ? {} : { runner: where.runner }),
  }))
  return writeHistoryRun(join(outDir, 'history'), records, where.now, where.limits ?? HISTORY_LIMITS)
}

/**
 * The commit and branch from the CI's variables (GitHub Actions, GitLab, Buildkite, CircleCI), else
 * from git in `root`; null for what neither knows (a detached HEAD has no branch).
 */
export function revisionOf(env: NodeJS.ProcessEnv, root: string): Revision {
  return revisionFrom(env, root, true)
}

/** revisionOf's branch alone: git is not asked for a commit nobody reads. */
export function branchOf(env: NodeJS.ProcessEnv, root: string): string | null {
  return revisionFrom(env, root, false).branch
}

// --- internal ---

const COMMIT_VARIABLES = ['GITHUB_SHA', 'CI_COMMIT_SHA', 'BUILDKITE_COMMIT', 'CIRCLE_SHA1']
// A pull request's GITHUB_REF_NAME is `123/merge`; its branch is GITHUB_HEAD_REF.
const BRANCH_VARIABLES = ['GITHUB_HEAD_REF', 'GITHUB_REF_NAME', 'CI_COMMIT_REF_NAME', 'BUILDKITE_BRANCH', 'CIRCLE_BRANCH']

function revisionFrom(env: NodeJS.ProcessEnv, root: string, withCommit: boolean): Revision {
  const pick = (names: readonly string[]): string | null => names.map((n) => env[n]).find((v) => v !== undefined && v !== '') ?? null
  const commit = withCommit ? pick(COMMIT_VARIABLES) : null
  const branch = pick(BRANCH_VARIABLES)
  // What the CI did not say, in one git call (each is a process every run's end waits for):
  // `rev-parse HEAD --abbrev-ref HEAD` prints the commit, then the branch (`HEAD` when detached).
  const asked = [...(withCommit && commit === null ? ['HEAD'] : []), ...(branch === null ? ['--abbrev-ref', 'HEAD'] : [])]
  const said = asked.length === 0 ? [] : (git(root, ['rev-parse', ...asked])?.split('\n') ?? [])
  const head = branch ?? said.at(-1) ?? null
  return { commit: withCommit ? (commit ?? said[0] ?? null) : null, branch: head === 'HEAD' ? null : head }
}

function git(root: string, args: string[]): string | null {
  try {
    return execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 5000 }).trim() || null
  } catch {
    // Not a repository, or no git: the records say "unknown" rather than guess.
    return null
  }
}
