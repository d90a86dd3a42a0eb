/**
 * ANSI escape sequences (colours, cursor moves, OSC hyperlinks) as terminals and test runners emit
 * them. They are stripped from what flakeproof shows and matches: `\u001b[31mSTALE\u001b[39m` must
 * count as the word STALE, and a report must not carry escape codes.
 */
// CSI sequences (ESC [ … final byte), OSC sequences (ESC ] … BEL or ESC \), and lone two-byte escapes.
const ANSI_PATTERN = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]|\u009b[0-?]*[ -/]*[@-~]/g

/** `text` without ANSI escape sequences. */
export function stripAnsi(text: string): string {
  return text.includes('\u001b') || text.includes('\u009b') ? text.replace(ANSI_PATTERN, '') : text
}
