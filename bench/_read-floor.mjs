// The floor a reader is measured against: read each file named and JSON.parse every line, nothing
// else; with --xml, read each file whole and pass it through sax in strict mode (the parser ingest
// reads JUnit with; Node cannot parse XML by itself), nothing else. Prints what it counted, so the
// work cannot be optimised away.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'

const xml = process.argv[2] === '--xml'
let counted = 0
if (xml) {
  const sax = createRequire(import.meta.url)('sax')
  for (const file of process.argv.slice(3)) {
    const parser = sax.parser(true)
    parser.onopentag = () => counted++
    parser.write(readFileSync(file, 'utf8')).close()
  }
} else {
  for (const file of process.argv.slice(2)) {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (line !== '') {
        JSON.parse(line)
        counted++
      }
    }
  }
}
console.log(counted)
