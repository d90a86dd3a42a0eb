// Preloaded (`node --import`) by the memory checks: writes the process's peak resident set, in KiB,
// to $MAX_RSS_FILE when it exits, however it exits.
import { writeFileSync } from 'node:fs'

process.on('exit', () => {
  if (process.env.MAX_RSS_FILE) writeFileSync(process.env.MAX_RSS_FILE, String(process.resourceUsage().maxRSS))
})
