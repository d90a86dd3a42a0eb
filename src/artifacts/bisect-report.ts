import type { BisectFile } from './bisect-schema.js'

/**
 * bisect.md: the bisection in words (docs/bisect.md). Pure: the same bisect.json always gives the
 * same text. Sections: which commit, the rates on both sides, what it cost, every visit, and what
 * was assumed.
 */
export function renderBisectMarkdown(file: BisectFile): string {
  const { culprit, rates } = file
  const lines = [
    `# Which commit changed the failure rate`,
    '',
    `\`${file.subject.kind === 'cmd' ? file.subject.command : `flakeproof ${file.subject.kind} ${file.subject.command}`}\`, from ${short(file.good.sha)} (good) to ${short(file.bad.sha)} (bad).`,
    '',
    '## Which commit',
    '',
    headline(file),
    '',
    '| commit | subject | probability |',
    '|---|---|---|',
    ...[culprit, ...file.alternatives].map((c) => `| \`${short(c.sha)}\` | ${cell(c.subject)} | ${pct(c.probability)} |`),
    '',
    '## Before and after',
    '',
    `| side | commits | executions | failed | rate | ${+(file.confidence * 100).toFixed(4)}% interval |`,
    '|---|---|---|---|---|---|',
    `| before ${short(culprit.sha)} | ${rates.before.commits} | ${rates.before.trials} | ${rates.before.failures} | ${pct(rates.before.rate)} | [${pct(rates.before.ci_low)}, ${pct(rates.before.ci_high)}] |`,
    `| from ${short(culprit.sha)} on | ${rates.after.commits} | ${rates.after.trials} | ${rates.after.failures} | ${pct(rates.after.rate)} | [${pct(rates.after.ci_low)}, ${pct(rates.after.ci_high)}] |`,
    '',
    ...overlapNote(file),
    '## What it cost',
    '',
    `${file.executions} executions (each in-process repetition counts as one) in ${file.process_starts} process starts, of a budget of ${file.max_executions}${file.prior ? `; ${file.prior.executions} more known before (${cell(file.prior.from)}, ${file.prior.failures} failed)` : ''}.`,
    costLine(file),
    '',
    '## Visits',
    '',
    '| # | commit | executions | failed | starts | top three after it |',
    '|---|---|---|---|---|---|',
    ...file.visits.map(
      (v) =>
        `| ${v.visit} | \`${short(v.sha)}\` (${v.position}) | ${v.executions} | ${v.failures} | ${v.process_starts} | ${v.error ? `not observed: ${cell(v.error)}` : v.top.map((t) => `\`${short(t.sha)}\` ${pct(t.probability)}`).join(', ')} |`,
    ),
    '',
    '## What was assumed',
    '',
    ...file.assumptions.map((a) => `- ${a}`),
    `- ${file.model}`,
    '',
  ]
  return lines.join('\n')
}

/** The answer in one sentence, as the terminal and the HTML page give it too. */
export function headline(file: BisectFile): string {
  const { culprit } = file
  const named = `\`${short(culprit.sha)}\` "${culprit.subject}"`
  const level = pct(file.confidence)
  switch (file.status) {
    case 'found':
      return `The culprit is ${named}, with posterior probability ${pct(culprit.probability)} (≥ ${level}).`
    case 'budget':
      return `Not sure yet: the budget of ${file.max_executions} executions ran out. Best guess ${named} at ${pct(culprit.probability)} (< ${level}); run again with a larger --max-executions (the executions seen are not reused).`
    case 'interrupted':
      return `Stopped before reaching ${level}. Best guess so far ${named} at ${pct(culprit.probability)}.`
    case 'unobservable':
      return `No commit left that could be run (see the visits). Best guess ${named} at ${pct(culprit.probability)}.`
  }
}

// --- internal ---

function overlapNote(file: BisectFile): string[] {
  const { before, after } = file.rates
  if (before.trials === 0 || after.trials === 0 || after.ci_low > before.ci_high || before.ci_low > after.ci_high) return []
  return ['The two intervals overlap: the rates are not yet told apart well, so the culprit rests on little evidence. Is --bad really worse than --good?', '']
}

function costLine(file: BisectFile): string {
  const { start_ms, repetition_ms, setup_ms } = file.costs
  const parts = [
    start_ms === null ? null : file.subject.kind === 'cmd' ? `one execution ${ms(start_ms)}` : `a process start ${ms(start_ms)}`,
    repetition_ms === null ? null : `a repetition ${ms(repetition_ms)}`,
    setup_ms === null ? null : `--setup ${ms(setup_ms)}`,
  ].filter((p) => p !== null)
  return parts.length === 0 ? '' : `Measured on the way, and used to choose each next commit and batch size: ${parts.join(', ')}.`
}

function short(sha: string): string {
  return sha.slice(0, 12)
}

function pct(x: number): string {
  return `${(x * 100).toFixed(1)}%`
}

function ms(x: number): string {
  return x >= 1000 ? `${(x / 1000).toFixed(2)} s` : `${x.toFixed(x < 10 ? 2 : 0)} ms`
}

/** A table cell holds no `|` or line break from a commit subject. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\s+/g, ' ')
}
