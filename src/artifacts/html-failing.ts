import { esc, ms } from './_html.js'
import type { ExecutionSummary, FailingExecution } from './html-executions.js'
import { linkFrames, type SourceContext, sourceLink } from './html-source.js'
import type { HtmlText } from './html-text.js'

/**
 * A drawn test's failing repetitions, each a `<details>`: the summary line says which (number,
 * mode, duration, worker, order) and its first error line; opened, it shows the error, the stack
 * with every frame in the user's code linked to its file, and the captured output. `anchor` is the
 * id prefix of the test's article (`s1`): a repetition's body is `s1-r5`, a proof run's `s1-p5`, so
 * strip marks link to them.
 */
export function renderFailing(
  anchor: string,
  summary: ExecutionSummary | undefined,
  kind: 'measured' | 'proof',
  files: { facts: string; present: boolean },
  source: SourceContext | undefined,
  t: HtmlText,
): string {
  if (!summary || summary.failures === 0) {
    if (files.present) return ''
    return `<p class="note">${t.noFailingDetail(files.facts)}</p>`
  }
  const items = summary.failing.map((f) => renderOne(failingId(anchor, kind, f.trial), f, source, t))
  return [
    `<section class="failing" aria-label="${esc(stripTags(t.failingTitle(kind === 'proof')))}">`,
    `<h4>${t.failingTitle(kind === 'proof')}</h4>`,
    `<p class="note">${t.failingCount(summary.failing.length, summary.failures, files.facts)}</p>`,
    items.join('\n'),
    '</section>',
  ].join('\n')
}

/** The element id of a failing execution shown in full. */
export function failingId(anchor: string, kind: 'measured' | 'proof', trial: number): string {
  return `${anchor}-${kind === 'proof' ? 'p' : 'r'}${trial}`
}

/** The first non-empty line of a failure's text, for the summary line and a mark's hover. */
export function headlineOf(failing: FailingExecution): string {
  const text = failing.error ?? (failing.stderr || failing.stdout)
  return (text.split(/\r?\n/).find((line) => line.trim() !== '') ?? '').slice(0, 200)
}

// --- internal ---

function renderOne(id: string, f: FailingExecution, source: SourceContext | undefined, t: HtmlText): string {
  const facts = [
    `<b>${t.repetition(f.trial)}</b>`,
    esc(t.modeShort[f.mode] ?? f.mode),
    ms(f.elapsedMs),
    ...(f.worker === null ? [] : [t.worker(esc(f.worker))]),
    ...(f.order === null ? [] : [t.order(f.order)]),
    ...(f.round === null ? [] : [t.round(f.round)]),
    ...(f.exitCode === null ? [] : [t.exitCode(String(f.exitCode))]),
    ...(f.signal === null ? [] : [t.signal(esc(f.signal))]),
    ...(f.timedOut ? [t.timedOut] : []),
  ]
  const first = headlineOf(f)
  const title = (file: string): string => t.linkTitle(file)
  const block = (label: string, text: string, cls: string): string =>
    `<dt>${label}</dt><dd><pre class="${cls}">${linkFrames(text, source, title)}</pre></dd>`
  const rows = [
    ...(f.error === null ? [] : [block(t.errorLabel, f.error, 'error')]),
    ...(f.stack === null ? [] : [block(t.stackLabel, f.stack, 'stack')]),
    ...(f.attachments.length === 0 ? [] : [`<dt>${t.attachmentsLabel}</dt><dd>${f.attachments.map((a) => `${esc(a.name)} ${attachmentLink(a.path, source, title)}`).join('<br>')}</dd>`]),
    // Only the streams that printed something; a test that printed nothing gets one line saying so.
    ...(f.stdout.trim() === '' && f.stderr.trim() === '' ? [`<dt>${t.outputLabel}</dt><dd><span class="muted">${t.none}</span></dd>`] : []),
    ...(f.stdout.trim() === '' ? [] : [block(t.stdoutLabel, f.stdout, 'output')]),
    ...(f.stderr.trim() === '' ? [] : [block(t.stderrLabel, f.stderr, 'output')]),
    ...(f.repeat === null ? [] : [`<dt>${t.repeatIndex}</dt><dd>${f.repeat}</dd>`]),
    ...(f.previousTest === null ? [] : [`<dt>${t.ranAfter}</dt><dd><code>${esc(f.previousTest)}</code></dd>`]),
    ...(f.origin === null ? [] : [`<dt>${t.readFrom}</dt><dd><code>${esc(f.origin)}</code></dd>`]),
  ]
  // The id is on the body, not the <details>: following a link to an element inside a closed
  // <details> opens it (Chromium, without any script); a link to the <details> itself would not.
  return [
    '<details class="rep">',
    `<summary><span class="repfacts">${facts.join(' · ')}</span>${first === '' ? '' : ` <code class="first">${esc(first)}</code>`}</summary>`,
    `<dl class="facts" id="${esc(id)}">${rows.join('')}</dl>`,
    '</details>',
  ].join('')
}

function stripTags(html: string): string {
  return html.replace(/<[^>]*>/g, '')
}

/** A file the runner kept (Playwright's trace.zip, a screenshot), linked relative to the report; shown as its path when the page has no folder. */
function attachmentLink(path: string, source: SourceContext | undefined, title: (file: string) => string): string {
  return source ? sourceLink({ file: path }, source, title) : `<code>${esc(path)}</code>`
}
