// A large JUnit report from a seeded generator (no Math.random): `cases` test cases in suites of
// 100, each with `outputBytes` of system-out and every 7th failing with a long message, so the
// report is mostly text, as real large reports are. Written in pieces, never held whole.
import { closeSync, openSync, writeSync } from 'node:fs'

/** Writes the report to `path`; returns its size in bytes. */
export function writeLargeReport(path, { cases, outputBytes, seed = 1 }) {
  let state = seed >>> 0
  // Numerical Recipes' LCG: deterministic, seeded.
  const next = () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0)
  const fd = openSync(path, 'w')
  let bytes = 0
  const put = (text) => {
    bytes += writeSync(fd, text)
  }
  put('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="generated">\n')
  for (let i = 0; i < cases; i++) {
    if (i % 100 === 0) put(`${i > 0 ? '</testsuite>\n' : ''}<testsuite name="suite ${i / 100}">\n`)
    const letter = String.fromCharCode(97 + (next() % 26))
    const output = letter.repeat(outputBytes)
    const failure = i % 7 === 0 ? `<failure message="case ${i} failed">${'trace line &amp; more\n'.repeat(outputBytes / 64)}</failure>` : ''
    put(`<testcase classname="m${i % 1000}" name="test ${i} &lt;${next() % 1000}&gt;" time="0.001">${failure}<system-out>${output}</system-out></testcase>\n`)
  }
  put('</testsuite>\n</testsuites>\n')
  closeSync(fd)
  return bytes
}
