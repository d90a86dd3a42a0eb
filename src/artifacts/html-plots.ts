import { esc, ms, n, pct } from './_html.js'
import type { DurationSample, ExecutionSummary, StripMark, StripSegment } from './html-executions.js'
import type { HtmlText } from './html-text.js'

/**
 * Hand-written SVG for report.html: a few shapes per plot, no library (a chart library would bring a
 * DOM or a runtime for what is lines, dots and rectangles). Every plot is an `<svg role="img">` with a
 * `<title>`, every mark has its own `<title>`, colours come from CSS classes (html-style.ts) so dark
 * mode and print restyle them, and the viewBox scales to any width down to 360 px.
 */

const WIDTH = 400

interface Interval {
  rate: number
  ci_low: number
  ci_high: number
}

/** The shared axis of the rate plots: the smallest of a few round maxima that holds every upper end. */
export function rateAxisMax(highs: readonly number[]): number {
  const top = Math.max(0, ...highs)
  return [0.05, 0.1, 0.2, 0.25, 0.5, 1].find((m) => top <= m) ?? 1
}

/** One dot (the rate) and whisker (the Wilson interval) on the shared axis [0, max]. */
export function intervalPlot(interval: Interval, max: number, label: string, t: HtmlText['plot']): string {
  const x = (v: number): string => n((Math.min(v, max) / max) * (WIDTH - 8) + 4)
  const range = t.interval(pct(interval.ci_low), pct(interval.ci_high))
  const text = `${label}: ${t.rate(pct(interval.rate))}, ${range}`
  return [
    `<svg class="plot ci" viewBox="0 0 ${WIDTH} 20" role="img" aria-label="${esc(text)}" tabindex="0">`,
    `<title>${esc(text)}</title>`,
    grid(max, 20, x),
    `<line class="whisker" x1="${x(interval.ci_low)}" x2="${x(interval.ci_high)}" y1="10" y2="10"><title>${esc(range)}</title></line>`,
    `<circle class="dot" cx="${x(interval.rate)}" cy="10" r="4"><title>${esc(t.rate(pct(interval.rate)))}</title></circle>`,
    '</svg>',
  ].join('')
}

/** The tick labels of the shared axis, for the rate table's header. */
export function rateAxis(max: number, t: HtmlText['plot']): string {
  const x = (v: number): number => (v / max) * (WIDTH - 8) + 4
  const labels = ticks(max).map((v, i, all) => {
    const anchor = i === 0 ? 'start' : i === all.length - 1 ? 'end' : 'middle'
    return `<text x="${n(i === 0 ? 0 : i === all.length - 1 ? WIDTH : x(v))}" y="13" text-anchor="${anchor}">${axisLabel(v, max)}</text>`
  })
  const title = esc(t.axis(axisLabel(max, max)))
  return `<svg class="plot axis" viewBox="0 0 ${WIDTH} 18" role="img" aria-label="${title}"><title>${title}</title>${labels.join('')}</svg>`
}

/** Fast and gapped measurements on one axis, labelled, with the axis below. */
export function comparisonPlot(fast: Interval, slow: Interval & { gap_ms: number }, label: string, t: HtmlText): string {
  const max = rateAxisMax([fast.ci_high, slow.ci_high])
  const left = 70
  const x = (v: number): string => n(left + (Math.min(v, max) / max) * (WIDTH - left - 8))
  const row = (name: string, cls: string, m: Interval, y: number): string =>
    `<text x="0" y="${y + 4}" class="label">${esc(name)}</text>` +
    `<line class="whisker ${cls}" x1="${x(m.ci_low)}" x2="${x(m.ci_high)}" y1="${y}" y2="${y}"><title>${esc(`${name}: ${t.plot.interval(pct(m.ci_low), pct(m.ci_high))}`)}</title></line>` +
    `<circle class="dot ${cls}" cx="${x(m.rate)}" cy="${y}" r="4"><title>${esc(`${name}: ${t.plot.rate(pct(m.rate))}`)}</title></circle>`
  const text = t.plot.compare(label, `${pct(fast.rate)} [${pct(fast.ci_low)}, ${pct(fast.ci_high)}]`, `${pct(slow.rate)} [${pct(slow.ci_low)}, ${pct(slow.ci_high)}]`)
  const axis = ticks(max)
    .map((v) => `<text x="${x(v)}" y="62" text-anchor="middle">${axisLabel(v, max)}</text>`)
    .join('')
  return [
    `<svg class="plot compare" viewBox="0 0 ${WIDTH} 66" role="img" aria-label="${esc(text)}" tabindex="0"><title>${esc(text)}</title>`,
    grid(max, 48, x),
    row(t.compareLabel.fast, 'mode-fast', fast, 14),
    row(t.compareLabel.gap(slow.gap_ms), 'mode-slow', slow, 36),
    axis,
    '</svg>',
  ].join('')
}

const PER_ROW = 100
const PITCH = 4
const ROW_HEIGHT = 18

/** What a strip mark says on hover and, for a failure shown in full on the page, where it leads. */
export interface MarkLabel {
  title: string
  /** `#s1-r5`: the failing repetition's details; absent when the page does not hold it. */
  href?: string | undefined
}

/**
 * One mark per execution (or per bin of executions, when there are more than STRIP_MARKS): a tall
 * mark for a failure, a short one for a pass, left to right and in rows of 100, so a burst, a
 * period or a start-up cluster shows as a shape. A failure the page shows in full is a link to it:
 * a group, not an image, so each link stays reachable by keyboard and screen reader.
 */
export function repetitionStrip(segment: StripSegment, label: string, labelOf: (mark: StripMark) => MarkLabel): string {
  const rows = Math.max(1, Math.ceil(segment.marks.length / PER_ROW))
  const marks = segment.marks.map((mark, i) => {
    const x = (i % PER_ROW) * PITCH
    const y = Math.floor(i / PER_ROW) * ROW_HEIGHT
    const { title, href } = labelOf(mark)
    if (mark.failures === 0) return `<rect class="mark pass mode-${segment.mode}" x="${x}" y="${y + 8}" width="3" height="6"><title>${esc(title)}</title></rect>`
    // The link's target area is the whole column, so a 3 px mark is easy to hit on a phone.
    const rect = `<rect class="mark fail" x="${x}" y="${y}" width="3" height="14"><title>${esc(title)}</title></rect>`
    return href === undefined ? rect : `<a href="${esc(href)}" class="marklink" aria-label="${esc(title)}"><rect class="hit" x="${x - 0.5}" y="${y}" width="4" height="${ROW_HEIGHT}"/>${rect}</a>`
  })
  const linked = marks.some((m) => m.startsWith('<a '))
  return `<svg class="plot strip" data-mode="${segment.mode}" viewBox="0 0 ${WIDTH} ${rows * ROW_HEIGHT}" role="${linked ? 'group' : 'img'}" aria-label="${esc(label)}"${linked ? '' : ' tabindex="0"'}><title>${esc(label)}</title>${marks.join('')}</svg>`
}

/** Durations of passing and failing executions on one linear axis from 0, with each row's mean. */
export function durationPlot(durations: ExecutionSummary['durations'], label: string, t: HtmlText['plot']): string {
  const { passed, failed } = durations
  const max = niceCeiling(Math.max(passed.maxMs, failed.maxMs, 1))
  const left = 50
  const x = (v: number): string => n(left + (v / max) * (WIDTH - left - 8))
  const row = (name: string, cls: string, sample: DurationSample, y: number): string => {
    // A fixed spread over 7 heights (not a random jitter): the same file always draws the same picture.
    const points = sample.points.map((p, i) => `<circle class="pt ${cls}" cx="${x(p.ms)}" cy="${y + ((i * 3) % 7) * 2 - 6}" r="2"><title>#${p.trial}: ${ms(p.ms)}</title></circle>`)
    const mean = sample.count === 0 ? '' : `<line class="mean" x1="${x(sample.meanMs)}" x2="${x(sample.meanMs)}" y1="${y - 10}" y2="${y + 10}"><title>${esc(t.mean(name, ms(sample.meanMs)))}</title></line>`
    return `<text x="0" y="${y + 4}" class="label">${esc(name)}</text>${points.join('')}${mean}`
  }
  const axis = [0, max / 2, max].map((v, i) => `<text x="${x(v)}" y="74" text-anchor="${i === 0 ? 'start' : i === 2 ? 'end' : 'middle'}">${ms(v)}</text>`).join('')
  const text = t.durations(label, passed.count, ms(passed.meanMs), failed.count, ms(failed.meanMs))
  return [
    `<svg class="plot durations" viewBox="0 0 ${WIDTH} 78" role="img" aria-label="${esc(text)}" tabindex="0"><title>${esc(text)}</title>`,
    `<line class="gridline" x1="${left}" x2="${WIDTH - 8}" y1="60" y2="60"/>`,
    row(t.passed, 'pass', passed, 16),
    row(t.failed, 'fail', failed, 44),
    axis,
    '</svg>',
  ].join('')
}

// --- internal ---

function ticks(max: number): number[] {
  return [0, max / 4, max / 2, (3 * max) / 4, max]
}

function axisLabel(v: number, max: number): string {
  return `${+(v * 100).toFixed(max < 0.1 ? 2 : 1)}%`
}

function grid(max: number, height: number, x: (v: number) => string): string {
  return ticks(max)
    .map((v) => `<line class="gridline" x1="${x(v)}" x2="${x(v)}" y1="0" y2="${height}"/>`)
    .join('')
}

/** 1, 2 or 5 times a power of ten, at least `v`. */
function niceCeiling(v: number): number {
  const power = 10 ** Math.floor(Math.log10(v))
  return ([1, 2, 5, 10].find((m) => m * power >= v) ?? 10) * power
}
