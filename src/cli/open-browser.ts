import { spawn } from 'node:child_process'

/** Where a file could be opened, or why not. */
export type OpenResult = { opened: true } | { opened: false; reason: string }

/**
 * Hands `path` to the desktop's opener (`open` on macOS, `start` on Windows, `xdg-open` elsewhere).
 * Without a desktop (no DISPLAY or WAYLAND_DISPLAY on Linux: a CI job, an ssh session) nothing is
 * started, since xdg-open would fall back to a terminal browser and take over the terminal.
 */
export async function openInBrowser(path: string, env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): Promise<OpenResult> {
  const opener = openerFor(platform, env)
  if ('reason' in opener) return { opened: false, reason: opener.reason }
  return new Promise((resolve) => {
    const child = spawn(opener.command, [...opener.args, path], { detached: true, stdio: 'ignore' })
    child.once('error', (error) => resolve({ opened: false, reason: `${opener.command}: ${(error as NodeJS.ErrnoException).code ?? error.message}` }))
    child.once('spawn', () => {
      // The browser outlives us; flakeproof must not wait for it.
      child.unref()
      resolve({ opened: true })
    })
  })
}

// --- internal ---

function openerFor(platform: NodeJS.Platform, env: NodeJS.ProcessEnv): { command: string; args: string[] } | { reason: string } {
  if (platform === 'darwin') return { command: 'open', args: [] }
  // `start` is a cmd built-in; its first quoted argument is a window title.
  if (platform === 'win32') return { command: 'cmd', args: ['/c', 'start', '""'] }
  if (!env.DISPLAY && !env.WAYLAND_DISPLAY) return { reason: 'no desktop (DISPLAY and WAYLAND_DISPLAY are not set)' }
  return { command: 'xdg-open', args: [] }
}
