import { stripAnsi } from '../core/ansi.js'
import type { ConditionsFile } from './conditions-schema.js'
import { countOf } from './counts-text.js'

/**
 * The report's "Which condition the failures follow" section (docs/contracts.md §13), from
 * conditions.json: the rounds that ran, then per test its tags and every comparison with both sides'
 * counts, so a reader can check each p-value. Nothing when the rounds varied no condition.
 */
export function renderConditionsSection(conditions: ConditionsFile | undefined): string[] {
  if (!conditions) return []
  const byCondition = new Map<string, number>()
  for (const { condition } of conditions.rounds) byCondition.set(condition, (byCondition.get(condition) ?? 0) + 1)
  const seeds = conditions.rounds.filter((r) => r.seed !== null).map((r) => `${r.round}: ${r.seed}`)
  const lines = [
    '## Which condition the failures follow',
    '',
    `- Rounds: ${[...byCondition].map(([c, n]) => `${n} ${c}`).join(', ')}, alternating${conditions.load_procs === null ? '' : `; ${conditions.load_procs} spinning process(es) in load rounds`}.`,
    ...(seeds.length > 0 ? [`- Seed of each round (replay one with \`--flaky-seed <seed>\`): ${seeds.join(', ')}.`] : []),
  ]
  const tests = Object.entries(conditions.tests)
  if (tests.length === 0) return [...lines, '- No test failed in any round: nothing to compare.', '']
  lines.push('', '| test | compared | a | b | p | tag |', '| --- | --- | --- | --- | --- | --- |')
  const notes: string[] = []
  for (const [id, { comparisons, order, tags }] of tests) {
    for (const c of comparisons) {
      lines.push(`| ${code(id)} | ${c.kind} | ${c.a.label} ${countOf(c.a.failures, c.a.trials)} | ${c.b.label} ${countOf(c.b.failures, c.b.trials)} | ${c.p_value.toPrecision(3)} | ${c.tag ?? '–'} |`)
    }
    if (order) {
      lines.push(`| ${code(id)} | order: after ${code(order.culprit)} | ${countOf(order.after_culprit.failures, order.after_culprit.trials)} | otherwise ${countOf(order.otherwise.failures, order.otherwise.trials)} | ${order.p_value.toPrecision(3)} | ${order.tag ?? '–'} |`)
    }
    notes.push(`- ${code(id)}${tags.length > 0 ? ` (**${tags.join(', ')}**)` : ''}: ${[...comparisons.map((c) => c.note), ...(order ? [order.note] : [])].map(oneLine).join(' ')}`)
  }
  return [...lines, '', ...notes, '']
}

// --- internal ---

const oneLine = (text: string): string => stripAnsi(text).replace(/\r?\n/g, ' ')
const code = (text: string): string => `\`${oneLine(text).replaceAll('|', '\\|').replaceAll('`', "'")}\``
