import { describe, expect, it } from 'vitest'
import { plainArgv } from '../../src/runner/_argv.js'

describe('plainArgv', () => {
  it.each([
    ['sleep 0.02', ['sleep', '0.02']],
    ['node examples/lab/job.js --state /tmp/x --seed=3', ['node', 'examples/lab/job.js', '--state', '/tmp/x', '--seed=3']],
    ['  npx vitest run  ', ['npx', 'vitest', 'run']],
  ])('%j is started directly', (command, argv) => {
    expect(plainArgv(command)).toEqual(argv)
  })

  it.each([
    'echo "a b"',
    "grep 'x' file",
    'cat $HOME/x',
    'ls *.ts',
    'ls ~',
    'a | b',
    'a && b',
    'a > out',
    'FOO=1 node x.js',
    'exit 3',
    'cd /tmp',
    'true',
    'echo hi',
    'test -f x',
    'a\\ b',
    'a; b',
    'sleep 1 &',
    '',
  ])('%j goes through the shell', (command) => {
    expect(plainArgv(command)).toBeUndefined()
  })
})
