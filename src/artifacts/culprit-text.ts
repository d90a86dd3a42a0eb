import { culpritsOf, type OrderFinding } from './conditions-schema.js'

/**
 * The tests an order finding names, in words: `A`, `A or B`, `A, B or C`, `A, B, C or 4 others`
 * (KO: `A 또는 B`, `A, B, C 또는 다른 4개`), each passed through `code` (markdown backquotes, HTML
 * `<code>`): a culprit the rounds cannot tell from others is never named alone. A finding that is
 * not significant names only its closest candidate, the others it ties with counted: at a few rounds
 * many tests tie, and none of them is a finding.
 */
export function culpritsText(order: Pick<OrderFinding, 'culprit' | 'tied' | 'significant'>, lang: 'en' | 'ko', code: (name: string) => string = (name) => name): string {
  const names = culpritsOf(order)
  const named = order.significant ? 3 : 1
  const shown = names.slice(0, named).map(code)
  const or = lang === 'ko' ? '또는' : 'or'
  if (names.length > named) {
    const others = names.length - named
    return `${shown.join(', ')} ${or} ${lang === 'ko' ? `다른 ${others}개` : `${others} other${others === 1 ? '' : 's'}`}`
  }
  if (shown.length === 1) return shown[0] as string
  return `${shown.slice(0, -1).join(', ')} ${or} ${shown.at(-1)}`
}

/** Whether the finding reads "fails unless it runs before" (files written before `direction`: "fails after"). */
export function needsCulprit(order: Pick<OrderFinding, 'direction'>): boolean {
  return order.direction === 'needs'
}
