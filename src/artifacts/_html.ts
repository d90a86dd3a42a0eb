/** Small text helpers shared by the report.html modules. */

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

/** Text or attribute value: test names and errors are user text and may hold markup. */
export function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c)
}

/**
 * A sentence that sets off commands (INDEPENDENCE_TEXT's `code` argument) as <code>, the rest
 * escaped: `sentence(codeMark)` marks each command, this turns the marks into elements.
 */
export function escWithCode(sentence: (code: (command: string) => string) => string): string {
  const marked = sentence((command) => `\u0000${command}\u0001`)
  return esc(marked).replace(/\u0000([^\u0001]*)\u0001/g, '<code class="cmd">$1</code>')
}

/** A rate as the markdown report writes it (one decimal), so both reports agree. */
export function pct(x: number): string {
  return `${(x * 100).toFixed(1)}%`
}

export function ms(x: number): string {
  if (x === 0) return '0 ms'
  return `${x < 10 ? x.toFixed(2) : x < 100 ? x.toFixed(1) : Math.round(x)} ms`
}

/** Coordinates with at most two decimals keep the SVG short. */
export function n(x: number): string {
  return String(Math.round(x * 100) / 100)
}

/** The first non-empty line of an error or an output, at most 300 characters: what a row or a summary shows. */
export function firstLine(text: string): string {
  return (text.split(/\r?\n/).find((l) => l.trim() !== '') ?? '').slice(0, 300)
}
