import { stripAnsi } from '../core/ansi.js'
import { comparisonSides, type ConditionsFile, orderSides } from './conditions-schema.js'
import { needsCulprit } from './culprit-text.js'
import type { Messages } from './report-messages.js'

/**
 * The report's "Which condition the failures follow" section (docs/contracts.md §13), from
 * conditions.json: the rounds that ran, then per test its tags and every comparison with both sides'
 * counts, so a reader can check each p-value. Nothing when the rounds varied no condition.
 */
export function renderConditionsSection(conditions: ConditionsFile | undefined, t: Messages): string[] {
  if (!conditions) return []
  const w = t.roundConditions
  const byCondition = new Map<string, number>()
  for (const { condition } of conditions.rounds) byCondition.set(condition, (byCondition.get(condition) ?? 0) + 1)
  const seeds = conditions.rounds.filter((r) => r.seed !== null).map((r) => `${r.round}: ${r.seed}`)
  const lines = [
    `## ${w.title}`,
    '',
    `- ${w.rounds([...byCondition].map(([c, n]) => w.roundCount(n, c)).join(', '), conditions.load_procs)}`,
    ...(seeds.length > 0 ? [`- ${w.seeds(seeds.join(', '))}`] : []),
  ]
  const tests = Object.entries(conditions.tests)
  if (tests.length === 0) return [...lines, `- ${w.nothing}`, '']
  lines.push('', `| ${w.header.join(' | ')} |`, `|${' --- |'.repeat(w.header.length)}`)
  const notes: string[] = []
  for (const [id, { comparisons, order, tags }] of tests) {
    for (const c of comparisons) {
      const { a, b, unit } = comparisonSides(c)
      lines.push(`| ${code(id)} | ${w.kind(c.kind)} | ${t.notes.side(c.a.label)} ${t.notes.countIn(a.failures, a.trials, unit)} | ${t.notes.side(c.b.label)} ${t.notes.countIn(b.failures, b.trials, unit)} | ${c.p_value.toPrecision(3)} | ${c.tag ? w.tag(c.tag) : '–'} |`)
    }
    if (order) {
      const { after, otherwise, unit } = orderSides(order)
      lines.push(`| ${code(id)} | ${w.order(w.culprits(order, code), needsCulprit(order))} | ${t.notes.countIn(after.failures, after.trials, unit)} | ${w.otherwise} ${t.notes.countIn(otherwise.failures, otherwise.trials, unit)} | ${order.p_value.toPrecision(3)} | ${order.tag ? w.tag(order.tag) : '–'} |`)
    }
    const said = [...comparisons.map((c) => t.notes.comparison(c)), ...(order ? [t.notes.order(order)] : [])]
    notes.push(`- ${code(id)}${tags.length > 0 ? ` (**${tags.map(w.tag).join(', ')}**)` : ''}: ${said.map(oneLine).join(' ')}`)
  }
  return [...lines, '', ...notes, '']
}

// --- internal ---

const oneLine = (text: string): string => stripAnsi(text).replace(/\r?\n/g, ' ')
const code = (text: string): string => `\`${oneLine(text).replaceAll('|', '\\|').replaceAll('`', "'")}\``
