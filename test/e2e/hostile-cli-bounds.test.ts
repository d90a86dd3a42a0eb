import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { type HostileCase, refusal, refusalContaining, runCliIn, runHostileCase } from '../hostile.js'
import { tempDir } from '../utils.js'

/**
 * The command line on bad values (last turn's bad-input table, and issue 19's lows): each mistake is
 * one line on stderr naming the flag, the value and a fix, exit 2, no stack trace, before any trial,
 * and the files around stay as they were — `existing.json`, given as an output, above all.
 */

function scene(dir: string): void {
  writeFileSync(join(dir, 'existing.json'), '{"keep": "me"}\n')
  writeFileSync(join(dir, 'not-json.json'), '{ trials: 200')
  writeFileSync(join(dir, 'bad-rate.json'), JSON.stringify({ schema_version: 1, trials: 'many' }))
  writeFileSync(join(dir, 'torn.jsonl'), '{"trial":1,"exit_code":0,"outc')
  // Bytes of someone's file that happens to be named as a plan: never to be echoed back.
  writeFileSync(join(dir, 'secret.json'), 'password=hunter2 \u001b[2J token=abc')
  writeFileSync(join(dir, 'file'), '')
  mkdirSync(join(dir, 'empty'))
}
/** A trial command that leaves `ran` behind: a refusal comes before any trial, so it never exists. */
const MARKS = 'touch ran'
const measure = (...flags: string[]) => ['measure', '--cmd', MARKS, '--out', 'existing.json', ...flags]
const NINES = '0.999999999999999999999'
const TINY = `0.${'0'.repeat(400)}1`

const TABLE: [string, string[], string | RegExp][] = [
  ['--trials 0', measure('--trials', '0'), '--trials must be a whole number >= 1 (got "0"); e.g. --trials 200'],
  ['--trials -3', measure('--trials', '-3'), '--trials must be a whole number >= 1 (got "-3"); e.g. --trials 200'],
  ['--trials 1.5', measure('--trials', '1.5'), '--trials must be a whole number >= 1 (got "1.5"); e.g. --trials 200'],
  ['--trials abc', measure('--trials', 'abc'), '--trials must be a whole number >= 1 (got "abc"); e.g. --trials 200'],
  ['--trials 1000001', measure('--trials', '1000001'), '--trials must be at most 1000000 trials in one run (got "1000001"); e.g. --trials 200'],
  ['missing --trials', measure(), '--trials must be a whole number >= 1; e.g. --trials 200'],
  ['--gap-ms -5', measure('--trials', '5', '--gap-ms', '-5'), '--gap-ms must be a whole number >= 0 (got "-5"); e.g. --gap-ms 2000'],
  ['--jobs 0', measure('--trials', '5', '--jobs', '0'), '--jobs must be a whole number >= 1 (got "0"); e.g. --jobs 4'],
  ['empty --cmd', ['measure', '--cmd', ' ', '--trials', '5', '--out', 'existing.json'], '--cmd must not be empty; e.g. --cmd "npm test"'],
  ['missing --cmd', ['measure', '--trials', '5', '--out', 'existing.json'], '--cmd is required; e.g. --cmd "npm test"'],
  ['--trials without value', ['measure', '--cmd', MARKS, '--out', 'existing.json', '--trials'], '--trials needs a value'],
  ['unknown flag', measure('--trails', '5'), 'unknown flag --trails; did you mean --trials?'],
  ['unknown flag, nothing close', measure('--frobnicate', '5'), 'unknown flag --frobnicate'],
  ['stray argument', ['measure', '--cmd', 'npm', 'test', '--trials', '5', '--out', 'existing.json'], 'unexpected argument test; quote a command with spaces: --cmd "npm test"'],
  ['--rate 1.5', ['plan', '--rate', '1.5', '--confidence', '0.95'], '--rate must be a number from 0 to 1 (got "1.5"); e.g. --rate 0.2'],
  ['--rate -0.1', ['plan', '--rate', '-0.1'], '--rate must be a number from 0 to 1 (got "-0.1"); e.g. --rate 0.2'],
  ['--confidence 1', ['plan', '--rate', '0.2', '--confidence', '1'], '--confidence must be a number strictly between 0 and 1 (got "1"); e.g. --confidence 0.95'],
  ['--confidence 0', ['plan', '--rate', '0.2', '--confidence', '0'], '--confidence must be a number strictly between 0 and 1 (got "0"); e.g. --confidence 0.95'],
  [
    `--confidence ${NINES}: below 1, but 1 once a double (it was written as "confidence": 1)`,
    ['plan', '--rate', '0.2', '--confidence', NINES, '--out', 'plan.json'],
    `--confidence must be a number strictly between 0 and 1 (got "${NINES}", which is 1 once rounded to a double); e.g. --confidence 0.95`,
  ],
  [
    '--confidence 0.(400 zeros)1: above 0, but 0 once a double',
    ['policy', '--rate', '0.2', '--confidence', TINY, '--out', 'policy.json'],
    `--confidence must be a number strictly between 0 and 1 (got "${TINY}", which is 0 once rounded to a double); e.g. --confidence 0.95`,
  ],
  ['--rate 0', ['plan', '--rate', '0', '--confidence', '0.95'], refusalContaining("plan from the interval's upper end instead")],
  ['--rate 1', ['plan', '--rate', '1', '--confidence', '0.95'], refusalContaining('deterministic failure, not a flake')],
  ['plan with neither form', ['plan', '--confidence', '0.95'], 'pass exactly one of --rate, --from (got 0); e.g. --rate 0.2 or --from rate.json'],
  ['policy --rate 0', ['policy', '--rate', '0', '--out', 'existing.json'], refusalContaining('no number of runs can be planned')],
  ['missing --from file', ['plan', '--from', 'nope.json'], refusalContaining('--from nope.json: cannot read it (no such file)')],
  ['--from not JSON, located', ['plan', '--from', 'not-json.json'], refusalContaining('--from not-json.json: not valid JSON (at line 1, column 3)')],
  [
    'proof --plan of a file that is not JSON: its bytes are not printed',
    ['proof', '--cmd', MARKS, '--plan', 'secret.json', '--out', 'proof.json'],
    '--plan secret.json: not valid JSON. Pass a runs_needed.json written by `flakeproof plan`',
  ],
  ['--from wrong shape', ['plan', '--from', 'bad-rate.json'], refusalContaining('trials: Invalid input: expected number, received string')],
  ['--from a folder', ['policy', '--from', '.', '--out', 'existing.json'], refusalContaining('--from .: cannot read it (is a folder)')],
  ['--in torn line', ['facts', '--in', 'torn.jsonl', '--out', 'existing.json'], refusalContaining('--in torn.jsonl: line 1 is not valid JSON')],
  ['--in a JSON file, not lines of facts', ['facts', '--in', 'existing.json', '--out', 'x.json'], refusalContaining('--in existing.json: line 1: trial: Invalid input')],
  ['proof with two sources', ['proof', '--cmd', MARKS, '--runs', '3', '--plan', 'existing.json', '--out', 'existing.json'], 'pass exactly one of --runs, --plan, --policy (got 2); e.g. --plan .flakeproof/runs_needed.json'],
  ['report of an empty folder', ['report', '--dir', 'empty'], refusalContaining('rate.json: cannot read it (no such file)')],
  ['--lang fr', ['report', '--dir', '.', '--lang', 'fr'], '--lang must be one of en, ko (got "fr")'],
  ['unwritable --out', ['measure', '--cmd', MARKS, '--trials', '1', '--out', 'file/rate.json'], refusalContaining('cannot write in file')],
  ['investigate --out-dir under a file: before any trial', ['investigate', '--cmd', MARKS, '--fixed-cmd', 'true', '--out-dir', 'file/out'], refusalContaining('--out-dir file/out')],
  ['--trials given twice', measure('--trials', '20', '--trials', '30'), '--trials given twice (20 and 30); give it once'],
  ['--trials=… given twice', measure('--trials=20', '--trials', '20'), '--trials given twice (20 and 20); give it once'],
  ['collect --out given twice', ['collect', '--cmd', MARKS, '--trials', '2', '--out', 'existing.json', '--out', 'b.jsonl'], '--out given twice (existing.json and b.jsonl); give it once'],
  ['plan --rate given twice', ['plan', '--rate', '0.2', '--rate', '0.3'], '--rate given twice (0.2 and 0.3); give it once'],
  ['--cmd given twice', measure('--cmd', 'exit 3', '--trials', '2'), '--cmd given twice ("touch ran" and "exit 3"); give it once'],
  // 2^31 - 1 ms is the longest delay a Node timer keeps; one more and it fires after 1 ms.
  ['--timeout-ms 2^31', measure('--trials', '1', '--timeout-ms', '2147483648'), refusalContaining('--timeout-ms must be at most 2147483647 ms')],
  ['--gap-ms 3e9', measure('--trials', '1', '--gap-ms', '3000000000'), refusalContaining('--gap-ms must be at most 2147483647 ms (about 24.9 days)')],
  ['observe --gap-ms 2^31', ['observe', '--cmd', MARKS, '--slow-trials', '2', '--gap-ms', '2147483648', '--out', 'existing.json'], refusalContaining('--gap-ms must be at most')],
  ['investigate --gap-ms 2^31', ['investigate', '--cmd', MARKS, '--fixed-cmd', 'true', '--gap-ms', '2147483648', '--out-dir', '.'], refusalContaining('--gap-ms must be at most')],
  ['unknown schema', ['schema', 'rates'], refusalContaining('must be one of rate, runs_needed, facts')],
]

/** The command each row runs, for its expected `flakeproof <command>: … See …` line. */
const commandOf = (args: string[]) => args[0] as string

const CASES: HostileCase[] = [
  ...TABLE.map(([name, args, line]) => ({
    name,
    scene,
    args,
    code: 2,
    stderr: [typeof line === 'string' ? refusal(commandOf(args), line) : line],
  })),
  {
    name: 'unknown command',
    scene,
    args: ['measur'],
    code: 2,
    stderr: ['flakeproof: unknown command `measur`; did you mean `measure`? See `flakeproof --help`.'],
  },
  {
    name: 'unknown command, nothing close: every command, the runners too',
    scene,
    args: ['frobnicate'],
    code: 2,
    stderr: [/^flakeproof: unknown command `frobnicate`; commands: measure, plan, .*, vitest, jest.* See `flakeproof --help`\.$/],
  },
  {
    name: 'escape codes in a value are not passed to the terminal',
    scene,
    args: ['\u001b[31mmeasur\u001b[39m'],
    code: 2,
    stderr: [/^flakeproof: unknown command `measur`; did you mean `measure`\?/],
  },
]

/**
 * Under `ulimit -n 100` Node could not even load flakeproof's modules (its ES module loader opens
 * many at once) and died with the loader's stack. Now it is one line saying so and how to fix it,
 * exit 3 (the system refused), or, where fewer modules load at once, the command simply works.
 * Linux only: the limit is read from /proc/self/limits.
 */
const FEW_FILES: string[][] = [
  ['plan', '--rate', '0.2'],
  ['merge', 'empty', '--out', 'm'],
  ['measure', '--cmd', 'true', '--trials', '2', '--out', 'rate.json'],
]
const TOO_FEW = /^flakeproof: cannot load its own modules \(.+\): this process may open at most 100 files at once \(ulimit -n\); raise the limit \(ulimit -n 1024\) and run again$/

describe('the command line, on bad values', () => {
  it.each(CASES)('$name', async (c) => {
    await runHostileCase(c)
  })
})

describe.skipIf(process.platform !== 'linux')('too few open files', () => {
  it.each(FEW_FILES)('ulimit -n 100: %s', async (...args) => {
    const dir = tempDir('flakeproof-hostile-')
    scene(dir)
    const result = await runCliIn(dir, args, {}, ['/bin/sh', '-c', 'ulimit -n 100 && exec "$0" "$@"'])
    expect(result.stderr).not.toMatch(/\n\s+at /)
    if (result.code === 3) expect(result.stderr.trim().split('\n')).toEqual([expect.stringMatching(TOO_FEW)])
    // Loaded after all: the command's own outcome (merge of a folder without rate.json is refused, exit 2).
    else expect([result.code, args[0]]).toEqual([args[0] === 'merge' ? 2 : 0, args[0]])
  })
})
