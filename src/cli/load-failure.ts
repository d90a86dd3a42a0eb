import { readFileSync } from 'node:fs'

/**
 * The line for flakeproof's own modules failing to load. With few files allowed open (`ulimit -n
 * 100`), Node's module loader, which opens many at once, fails before or while a command loads, and
 * says "Cannot find package" or EMFILE with its stack; said here, it is one line saying why and what
 * to do (exit 3: the system refused, docs/contracts.md §6).
 */
export async function cannotLoadLine(error: unknown): Promise<string> {
  return `flakeproof: cannot load its own modules (${firstLine(error)}): ${advice(await openFilesLimit())}`
}

function firstLine(error: unknown): string {
  return String((error as Error | undefined)?.message ?? error).split('\n')[0] ?? ''
}

/**
 * The soft limit of open files, from /proc/self/limits (Linux). The loader's own reads may still hold
 * every file the limit allows for a moment, so a failed read is tried again a few times.
 */
async function openFilesLimit(): Promise<number | undefined> {
  for (let attempt = 0; attempt < 20; attempt++) {
    try {
      const soft = /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1]
      return soft === undefined ? undefined : Number(soft)
    } catch (error) {
      // Not Linux: the limit cannot be read, only suggested.
      if ((error as NodeJS.ErrnoException).code !== 'EMFILE') return undefined
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  }
  return undefined
}

/** The open-files limit is the usual cause. */
function advice(limit: number | undefined): string {
  if (limit !== undefined && limit < 1024) return `this process may open at most ${limit} files at once (ulimit -n); raise the limit (ulimit -n 1024) and run again`
  return 'if `ulimit -n` is low, raise it (ulimit -n 1024); otherwise reinstall flakeproof (npm ci)'
}
