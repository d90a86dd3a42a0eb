import { createRequire } from 'node:module'
import { join } from 'node:path'

/** The project's Jest version (`29.4.3`), for hints in its own syntax; undefined when it cannot be read. */
export function jestVersion(rootDir: string): string | undefined {
  try {
    const { version } = createRequire(join(rootDir, 'package.json'))('jest/package.json') as { version?: unknown }
    return typeof version === 'string' ? version : undefined
  } catch {
    return undefined
  }
}
