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

/**
 * The start of a self-contained page up to `<body>`: inline CSS, and a Content-Security-Policy under
 * which no request may leave the page, even one a future edit adds by mistake, and no script runs
 * but the page's own (allowed by its hash, when it has one).
 */
export function pageHead(title: string, style: string, page: { lang?: string; scriptHash?: string } = {}): string[] {
  const script = page.scriptHash === undefined ? '' : `; script-src ${page.scriptHash}`
  return [
    '<!doctype html>',
    `<html lang="${page.lang ?? 'en'}">`,
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:${script}; base-uri 'none'; form-action 'none'">`,
    `<title>${esc(title)}</title>`,
    `<style>${style}</style>`,
    '</head>',
    '<body>',
  ]
}
