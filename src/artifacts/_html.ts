/** Small text helpers shared by the report.html modules. */

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

/** Text or attribute value: test names and errors are user text and may hold markup. */
export function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c)
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

/**
 * The start of a self-contained page up to `<body>`: inline CSS only, and a Content-Security-Policy
 * under which no request may leave the page, even one a future edit adds by mistake.
 */
export function pageHead(title: string, style: string): string[] {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`,
    `<title>${esc(title)}</title>`,
    `<style>${style}</style>`,
    '</head>',
    '<body>',
  ]
}
