import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { joinShellWords } from '../../src/core/shell-words.js'

describe('joinShellWords', () => {
  it.each([
    [['python3', '-m', 'pytest', '-q'], 'python3 -m pytest -q'],
    [['--junitxml=out/run-{run}.xml'], "'--junitxml=out/run-{run}.xml'"],
    [['-k', 'a or b'], "-k 'a or b'"],
    [["it's"], "'it'\\''s'"],
    [['$HOME', '*.py', ''], "'$HOME' '*.py' ''"],
  ])('%j → %s', (words, line) => {
    expect(joinShellWords(words)).toBe(line)
  })

  it('gives back to /bin/sh exactly the words it was given', () => {
    const words = ['a b', "it's", '$HOME', '"q"', 'back\\slash', '{run}', '']
    // printf prints each argument on its own line, as the shell split them.
    const out = execFileSync('sh', ['-c', `printf '%s\\n' ${joinShellWords(words)}`], { encoding: 'utf8' })
    expect(out.split('\n').slice(0, -1)).toEqual(words)
  })
})
