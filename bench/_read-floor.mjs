// The floor a reader is measured against: read each file named and JSON.parse every line, nothing
// else; with --bytes, only read each file whole (for XML, which Node cannot parse by itself). Prints
// what it counted, so the work cannot be optimised away.
import { readFileSync } from 'node:fs'

const bytesOnly = process.argv[2] === '--bytes'
let counted = 0
for (const file of process.argv.slice(bytesOnly ? 3 : 2)) {
  const text = readFileSync(file, 'utf8')
  if (bytesOnly) {
    counted += text.length
    continue
  }
  for (const line of text.split('\n')) {
    if (line !== '') {
      JSON.parse(line)
      counted++
    }
  }
}
console.log(counted)
