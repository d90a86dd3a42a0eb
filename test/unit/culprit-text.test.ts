import { describe, expect, it } from 'vitest'
import { culpritsText, tiedText } from '../../src/artifacts/culprit-text.js'

describe('culpritsText: the tests an order finding names, never one alone when the rounds cannot tell them apart', () => {
  const order = (...names: string[]) => ({ culprit: names[0] as string, ...(names.length > 1 ? { tied: names.slice(1) } : {}), significant: true })
  it.each<[string[], 'en' | 'ko', string]>([
    [['a'], 'en', 'a'],
    [['a', 'b'], 'en', 'a or b'],
    [['a', 'b', 'c'], 'en', 'a, b or c'],
    // Three names at most; the rest counted.
    [['a', 'b', 'c', 'd'], 'en', 'a, b, c or 1 other'],
    [['a', 'b', 'c', 'd', 'e'], 'en', 'a, b, c or 2 others'],
    [['a', 'b'], 'ko', 'a 또는 b'],
    [['a', 'b', 'c', 'd', 'e'], 'ko', 'a, b, c 또는 다른 2개'],
  ])('%j (%s): %s', (names, lang, text) => {
    expect(culpritsText(order(...names), lang)).toBe(text)
  })

  it('names only the closest candidate of a finding that is not significant, the others counted', () => {
    // At a few rounds many tests tie, and none of them is a finding.
    expect(culpritsText({ ...order('a', 'b', 'c'), significant: false }, 'en')).toBe('a or 2 others')
    expect(culpritsText({ ...order('a'), significant: false }, 'en')).toBe('a')
  })

  it('passes each name through the caller’s code format', () => {
    expect(culpritsText(order('a', 'b'), 'en', (name) => `\`${name}\``)).toBe('`a` or `b`')
  })
})

describe('tiedText: what tied culprits mean, and whether more rounds can tell them apart', () => {
  const tied = { culprit: 'a', tied: ['b', 'c'], significant: true }
  const code = (name: string) => `\`${name}\``
  it.each<[string, Parameters<typeof tiedText>[0], 'en' | 'ko', string]>([
    ['none tied', { culprit: 'a', significant: true }, 'en', ''],
    ['not significant: no finding to qualify', { ...tied, significant: false }, 'en', ''],
    ['a runner that may part them', tied, 'en', 'these rounds support each of these 3 tests alike; more shuffled rounds may tell them apart'],
    ['one describe block', { ...tied, together: { kind: 'block', scope: ['Router', 'links'] } }, 'en', 'these 3 tests run on the same side of it in every shuffled order (describe `Router > links`, which a shuffle keeps whole), so no number of rounds tells them apart: the state is in them or their hooks'],
    ['Vitest’s blocks apart from its tests', { ...tied, together: { kind: 'blocks', scope: ['Router'] } }, 'en', 'these 3 tests run on the same side of it in every shuffled order (the describe blocks in `Router`, which Vitest runs apart from the tests beside them), so no number of rounds tells them apart: the state is in them or their hooks'],
    ['Vitest’s tests apart from its blocks, at the top of the file', { ...tied, together: { kind: 'tests', scope: [] } }, 'en', 'these 3 tests run on the same side of it in every shuffled order (the tests directly in the file, which Vitest runs apart from the describe blocks beside them), so no number of rounds tells them apart: the state is in them or their hooks'],
    ['KO, a runner that may part them', tied, 'ko', '이 라운드들로는 이 3개 테스트를 구별할 수 없으며, 셔플 라운드를 더 돌리면 구별될 수 있습니다'],
    ['KO, one describe block', { ...tied, together: { kind: 'block', scope: ['Router'] } }, 'ko', '이 3개 테스트는 어떤 셔플 순서에서도 실패한 테스트보다 모두 앞이나 모두 뒤에서 실행되므로 (describe `Router`: 셔플해도 한 덩어리로 실행됩니다) 라운드를 더 돌려도 구별되지 않습니다: 그 상태는 이 테스트들이나 그 훅이 남깁니다'],
    ['KO, blocks at the top of the file', { ...tied, together: { kind: 'blocks', scope: [] } }, 'ko', '이 3개 테스트는 어떤 셔플 순서에서도 실패한 테스트보다 모두 앞이나 모두 뒤에서 실행되므로 (파일 최상위의 describe 블록들: Vitest는 이들을 옆의 테스트들과 따로 실행합니다) 라운드를 더 돌려도 구별되지 않습니다: 그 상태는 이 테스트들이나 그 훅이 남깁니다'],
    // A name holding ` > ` is written as a test id writes it.
    ['a block named "a > b"', { ...tied, together: { kind: 'block', scope: ['outer', 'a > b'] } }, 'en', 'these 3 tests run on the same side of it in every shuffled order (describe `outer > a \\> b`, which a shuffle keeps whole), so no number of rounds tells them apart: the state is in them or their hooks'],
  ])('%s', (_name, order, lang, text) => {
    expect(tiedText(order, lang, code)).toBe(text)
  })
})
