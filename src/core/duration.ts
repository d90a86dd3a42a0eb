const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const

/**
 * A duration as people type it for a budget: `300s`, `5m`, `1.5h`, `250ms`, or a bare number of
 * milliseconds. Undefined for anything else (`5 min`, `-1m`, `1e3s`), so the caller can say what
 * it expected.
 */
export function parseDurationMs(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim())
  if (!match) return undefined
  const unit = (match[2] ?? 'ms') as keyof typeof UNIT_MS
  return Math.round(Number(match[1]) * UNIT_MS[unit])
}
