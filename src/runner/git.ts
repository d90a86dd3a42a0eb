import { execFile } from 'node:child_process'

/** A git command that exited non-zero: its first line of stderr says why, in git's words. */
export class GitError extends Error {
  readonly stderr: string
  constructor(args: readonly string[], stderr: string) {
    const why = stderr.trim().split('\n')[0] || 'failed'
    super(`git ${args.join(' ')}: ${why}`)
    this.name = 'GitError'
    this.stderr = stderr
  }
}

/**
 * Runs git in `cwd` and returns its stdout. Optional locks are off (GIT_OPTIONAL_LOCKS=0), so
 * reading the user's repository never refreshes or rewrites their index; prompts are off, so a
 * missing credential fails instead of waiting for a terminal that is not there.
 * @throws GitError when git exits non-zero
 */
export function git(args: readonly string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      [...args],
      { cwd, maxBuffer: 256 * 1024 * 1024, env: { ...process.env, GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0' } },
      (error, stdout, stderr) => (error ? reject(new GitError(args, stderr || error.message)) : resolve(stdout)),
    )
  })
}
