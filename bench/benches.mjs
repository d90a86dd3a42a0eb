// Every bench script and the ratios it prints (bench/_harness.mjs printRatio). `npm run bench` runs
// them all (bench/all.mjs); test/e2e/bench-smoke.test.ts runs each in smoke mode and checks that it
// printed each of its ratios, so a bench cannot rot unnoticed. A new bench is one entry here.
// `optional`: ratios printed only on some machines (startup's second one where NODE_EXTRA_CA_CERTS is set).
export const BENCHES = [
  { script: 'startup.mjs', ratios: ['cli start-up'], optional: ['cli start-up without NODE_EXTRA_CA_CERTS'] },
  { script: 'wrapped-run.mjs', ratios: ['wrapped vitest run vs vitest run', 'wrapped jest run vs jest'] },
  { script: 'merge-scale.mjs', ratios: ['merge vs read-and-parse floor', 'history vs read-and-parse floor', 'ingest vs read-and-parse floor'] },
  { script: 'vitest-repeat.mjs', ratios: ['in-process repetition vs native repeats', 'repetition cost growth', 'peak RSS vs native repeats'] },
  { script: 'vitest-rounds.mjs', ratios: ['rounds --no-isolate vs K processes', 'rounds (isolated) vs K processes'] },
  { script: 'jest-repeat.mjs', ratios: ['jest in-process vs N processes'] },
  { script: 'measure-overhead.mjs', ratios: ['measure vs shell loop'] },
  { script: 'ingest-memory.mjs', ratios: ['ingest peak RSS vs 300 MB'] },
]

/**
 * Scripts of bench/ that write the calibration tables of the docs (seeded simulations, not timings):
 * no ratio, so `npm run bench` leaves them out; the suite runs each with --smoke, which prints a
 * table at tiny sizes and writes nothing.
 */
export const CALIBRATIONS = ['calibration.mjs', 'bisect-calibration.mjs']

/** Files of bench/ that are no bench: helpers (and `_`-prefixed ones) other scripts import. */
export const HELPERS = ['all.mjs', 'benches.mjs', 'junit-report.mjs']

/** `ratio <name>: <value> (target … | no target) …`, as printRatio writes it. */
export const RATIO_LINE = /^ratio (.+?): (\S+) \((target (?:<=|>=) [\d.]+: (?:met|NOT MET|smoke)|no target)\)/

/**
 * The end of `npm run bench`: each ratio line without its detail, then how many targets are met and
 * which are not (in smoke mode, that none was judged).
 */
export function closingLines(ratioLines) {
  const parsed = ratioLines.map((line) => RATIO_LINE.exec(line)).filter((m) => m !== null)
  const verdict = (m, word) => m[3].endsWith(`: ${word}`)
  const met = parsed.filter((m) => verdict(m, 'met')).length
  const notMet = parsed.filter((m) => verdict(m, 'NOT MET')).map((m) => m[1])
  const smoke = parsed.filter((m) => verdict(m, 'smoke')).length
  const tally =
    smoke > 0
      ? `targets not judged: ${smoke} (smoke mode: sizes that small measure nothing)`
      : `${met} of ${met + notMet.length} targets met${notMet.length > 0 ? `; not met: ${notMet.join(', ')}` : ''}`
  return [...parsed.map((m) => m[0].replace(/^ratio /, '')), '', tally]
}
