import { culpritsOf, type OrderFinding } from './conditions-schema.js'

/** At most this many names; the rest are counted. */
const NAMED = 3

/**
 * The tests an order finding names, in words: `A`, `A or B`, `A, B or C`, `A, B, C or 4 others`
 * (KO: `A 또는 B`, `A, B, C 또는 다른 4개`), each passed through `code` (markdown backquotes, HTML
 * `<code>`): a culprit the rounds cannot tell from others is never named alone.
 */
export function culpritsText(order: Pick<OrderFinding, 'culprit' | 'tied'>, lang: 'en' | 'ko', code: (name: string) => string = (name) => name): string {
  const names = culpritsOf(order)
  const shown = names.slice(0, NAMED).map(code)
  const or = lang === 'ko' ? '또는' : 'or'
  if (names.length > NAMED) {
    const others = names.length - NAMED
    return `${shown.join(', ')} ${or} ${lang === 'ko' ? `다른 ${others}개` : `${others} other${others === 1 ? '' : 's'}`}`
  }
  if (shown.length === 1) return shown[0] as string
  return `${shown.slice(0, -1).join(', ')} ${or} ${shown.at(-1)}`
}

/** Whether the finding reads "fails unless it runs before" (files written before `direction`: "fails after"). */
export function needsCulprit(order: Pick<OrderFinding, 'direction'>): boolean {
  return order.direction === 'needs'
}
