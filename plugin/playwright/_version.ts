import { createRequire } from 'node:module'
import { join } from 'node:path'

/** The project's Playwright Test version (`1.65.1`), for rate.json and hints; undefined when it cannot be read. */
export function playwrightVersion(rootDir: string): string | undefined {
  try {
    const { version } = createRequire(join(rootDir, 'package.json'))('@playwright/test/package.json') as { version?: unknown }
    return typeof version === 'string' ? version : undefined
  } catch {
    return undefined
  }
}
