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

/**
 * What the tied tests of a significant finding mean, as a clause (no capital, no full stop): more
 * shuffled rounds may tell them apart (not always, in Vitest: src/core/shuffle-order.ts), or, when
 * the runner's shuffle always keeps them on one side of the test (`together`), no number of rounds
 * can, and where they are. '' when none tie.
 */
export function tiedText(order: Pick<OrderFinding, 'culprit' | 'tied' | 'significant' | 'together'>, lang: 'en' | 'ko', code: (name: string) => string = (name) => name): string {
  const n = culpritsOf(order).length
  if (!order.significant || n < 2) return ''
  const { together } = order
  if (together === undefined) return lang === 'ko' ? `이 라운드들로는 이 ${n}개 테스트를 구별할 수 없으며, 셔플 라운드를 더 돌리면 구별될 수 있습니다` : `these rounds support each of these ${n} tests alike; more shuffled rounds may tell them apart`
  // Written as a test id writes a suite's name (src/core/test-id.ts): ` > ` inside a name as ` \> `.
  const named = together.scope.map((name) => name.split(' > ').join(' \\> ')).join(' > ')
  const scope = together.scope.length > 0 ? code(named) : lang === 'ko' ? '파일 최상위' : 'the file'
  if (lang === 'ko') {
    const inScope = together.scope.length > 0 ? `${scope} 안` : scope
    const where = { block: `describe ${scope}: 셔플해도 한 덩어리로 실행됩니다`, blocks: `${inScope}의 describe 블록들: Vitest는 이들을 옆의 테스트들과 따로 실행합니다`, tests: `${inScope}에 바로 있는 테스트들: Vitest는 이들을 옆의 describe 블록들과 따로 실행합니다` }[together.kind]
    return `이 ${n}개 테스트는 어떤 셔플 순서에서도 실패한 테스트보다 모두 앞이나 모두 뒤에서 실행되므로 (${where}) 라운드를 더 돌려도 구별되지 않습니다: 그 상태는 이 테스트들이나 그 훅이 남깁니다`
  }
  const where = { block: `describe ${scope}, which a shuffle keeps whole`, blocks: `the describe blocks in ${scope}, which Vitest runs apart from the tests beside them`, tests: `the tests directly in ${scope}, which Vitest runs apart from the describe blocks beside them` }[together.kind]
  return `these ${n} tests run on the same side of it in every shuffled order (${where}), so no number of rounds tells them apart: the state is in them or their hooks`
}
