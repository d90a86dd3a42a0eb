import { GitError, git } from '../runner/git.js'
import { FlakeproofError } from '../errors.js'

/** One commit of the range, as bisect.json names it. */
export interface RangeCommit {
  sha: string
  subject: string
  /** Parents, first first; a merge has two or more. */
  parents: string[]
}

export interface CommitRange {
  /** The repository's top folder (where the temporary worktrees are added from). */
  repo: string
  /** Where the user ran bisect, relative to the top folder ('' at the top, else ending in /): commands run there in each checkout. */
  prefix: string
  /** Oldest first: `commits[0]` is --good, the last one is --bad; the culprit is one of the others. */
  commits: RangeCommit[]
  /** What the bisection takes for granted, in words, for the report. */
  assumptions: string[]
  /**
   * Commits that share `key[i]` have the same lockfiles, so a checkout set up for one serves the
   * others (`--setup` runs once per key); without any lockfile every commit is its own key.
   */
  setupKey: string[]
}

/** The lockfiles whose content decides what `--setup` (an install) produces. */
export const LOCKFILES = ['package-lock.json', 'npm-shrinkwrap.json', 'yarn.lock', 'pnpm-lock.yaml', 'bun.lock', 'bun.lockb'] as const

/**
 * The commits to bisect: the first-parent line from --bad back to --good (a merge is one step,
 * whatever its branch held), or only its merge commits with `merges`. Read-only in the user's
 * repository. @throws FlakeproofError `E_USAGE` naming the flag when a revision is not usable
 */
export async function resolveRange(cwd: string, good: string, bad: string, merges: boolean): Promise<CommitRange> {
  const repo = (await gitOrUsage(['rev-parse', '--show-toplevel'], cwd, 'flakeproof bisect runs inside a git repository; cd into one')).trim()
  const prefix = (await git(['rev-parse', '--show-prefix'], cwd)).trim()
  const goodSha = await commitOf(repo, good, '--good')
  const badSha = await commitOf(repo, bad, '--bad')
  if (goodSha === badSha) throw new FlakeproofError(`--good ${good} and --bad ${bad} are the same commit (${goodSha.slice(0, 12)}); give a good commit older than the bad one`, 'E_USAGE')
  const ancestor = await git(['merge-base', '--is-ancestor', goodSha, badSha], repo).then(
    () => true,
    () => false,
  )
  if (!ancestor) throw new FlakeproofError(`--good ${good} is not an ancestor of --bad ${bad}; give a good commit from the history of the bad one (git log ${bad})`, 'E_USAGE')
  const line = parseLog(await git(['log', '--first-parent', '--format=%H%x00%P%x00%s', `${goodSha}..${badSha}`], repo)).reverse()
  const oldest = line[0]
  if (oldest === undefined || oldest.parents[0] !== goodSha) {
    throw new FlakeproofError(
      `--good ${good} is not on the first-parent line of --bad ${bad} (it came in through a merge); give the commit of that line just before the merge, e.g. one of \`git log --first-parent --oneline ${bad}\``,
      'E_USAGE',
    )
  }
  const [goodCommit] = parseLog(await git(['log', '-1', '--format=%H%x00%P%x00%s', goodSha], repo))
  const chosen = merges ? line.filter((c, i) => c.parents.length > 1 || i === line.length - 1) : line
  if (merges && chosen.length === 1 && line.length > 1 && (line.at(-1)?.parents.length ?? 0) < 2) {
    throw new FlakeproofError(`--merges: no merge commit between --good ${good} and --bad ${bad}; leave out --merges to bisect every commit of the line`, 'E_USAGE')
  }
  const commits = [goodCommit as RangeCommit, ...chosen]
  return { repo, prefix, commits, assumptions: assumptionsOf(merges, line.length, chosen.length), setupKey: await setupKeys(repo, goodSha, badSha, commits) }
}

// --- internal ---

async function commitOf(repo: string, rev: string, flag: string): Promise<string> {
  const sha = await git(['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`], repo).catch(() => '')
  if (sha.trim() === '') throw new FlakeproofError(`${flag} ${rev}: not a commit in ${repo}; give a sha, a branch or a tag (git log --oneline)`, 'E_USAGE')
  return sha.trim()
}

async function gitOrUsage(args: string[], cwd: string, hint: string): Promise<string> {
  try {
    return await git(args, cwd)
  } catch (error) {
    if (error instanceof GitError) throw new FlakeproofError(`${error.message}; ${hint}`, 'E_USAGE')
    throw new FlakeproofError(`cannot run git (${(error as Error).message}); install git`, 'E_USAGE')
  }
}

function parseLog(text: string): RangeCommit[] {
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const [sha = '', parents = '', subject = ''] = line.split('\u0000')
      return { sha, parents: parents.split(' ').filter(Boolean), subject }
    })
}

function assumptionsOf(merges: boolean, line: number, chosen: number): string[] {
  return [
    'One commit changed the failure rate: every execution before it fails independently at one rate, every one from it on at another (both unknown, Beta priors).',
    '--good has the old rate and --bad the new one; the culprit is one of the commits after --good, up to --bad.',
    merges
      ? `Only the ${chosen} merge commits of the first-parent line are visited (of ${line}); a commit between two merges is named as the merge after it.`
      : 'History is read along the first parent: a merged branch is one step (its merge commit), its own commits are not visited.',
    'Executions are independent of one another and of the order commits are visited in.',
  ]
}

/**
 * The setup key of each commit: the lockfiles' content, read as the commit that last changed any
 * of them along the line (one `git log`, not one command per commit). Without lockfiles, the sha.
 */
async function setupKeys(repo: string, goodSha: string, badSha: string, commits: readonly RangeCommit[]): Promise<string[]> {
  const atBad = await git(['ls-tree', '--name-only', badSha, '--', ...LOCKFILES], repo)
  const atGood = await git(['ls-tree', '--name-only', goodSha, '--', ...LOCKFILES], repo)
  if (atBad.trim() === '' && atGood.trim() === '') return commits.map((c) => c.sha)
  const changed = new Set(
    (await git(['log', '--first-parent', '--diff-merges=first-parent', '--format=%H', `${goodSha}..${badSha}`, '--', ...LOCKFILES], repo)).split('\n').filter(Boolean),
  )
  const line = (await git(['rev-list', '--first-parent', '--reverse', `${goodSha}..${badSha}`], repo)).split('\n').filter(Boolean)
  const keyAt = new Map<string, string>([[goodSha, `lockfiles@${goodSha}`]])
  let key = `lockfiles@${goodSha}`
  for (const sha of line) {
    if (changed.has(sha)) key = `lockfiles@${sha}`
    keyAt.set(sha, key)
  }
  return commits.map((c) => keyAt.get(c.sha) ?? c.sha)
}
