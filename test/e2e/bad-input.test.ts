import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { labCommand, runCli, tempDir } from '../utils.js'

/**
 * Every mistake gets one line on stderr that names the flag, the value and a fix, exit 2, no stack
 * trace, and leaves the files already on disk as they were.
 */
describe('bad input', () => {
  const dir = tempDir()
  const existing = join(dir, 'existing.json')
  const before = '{"keep": "me"}\n'
  writeFileSync(existing, before)
  writeFileSync(join(dir, 'not-json.json'), '{ trials: 200')
  writeFileSync(join(dir, 'bad-rate.json'), JSON.stringify({ schema_version: 1, trials: 'many' }))
  writeFileSync(join(dir, 'torn.jsonl'), '{"trial":1,"exit_code":0,"outc')
  writeFileSync(join(dir, 'file'), '')
  mkdirSync(join(dir, 'empty'))
  const measure = (...flags: string[]) => ['measure', '--cmd', 'true', '--out', existing, ...flags]

  it.each([
    ['--trials 0', measure('--trials', '0'), '--trials must be a whole number >= 1 (got "0"); e.g. --trials 200'],
    ['--trials -3', measure('--trials', '-3'), '--trials must be a whole number >= 1 (got "-3")'],
    ['--trials 1.5', measure('--trials', '1.5'), '--trials must be a whole number >= 1 (got "1.5")'],
    ['--trials abc', measure('--trials', 'abc'), '--trials must be a whole number >= 1 (got "abc")'],
    ['missing --trials', measure(), '--trials must be a whole number >= 1; e.g. --trials 200'],
    ['--gap-ms -5', measure('--trials', '5', '--gap-ms', '-5'), '--gap-ms must be a whole number >= 0 (got "-5")'],
    ['--jobs 0', measure('--trials', '5', '--jobs', '0'), '--jobs must be a whole number >= 1 (got "0")'],
    ['empty --cmd', ['measure', '--cmd', ' ', '--trials', '5', '--out', existing], '--cmd must not be empty'],
    ['missing --cmd', ['measure', '--trials', '5', '--out', existing], '--cmd is required; e.g. --cmd "npm test"'],
    ['--trials without value', ['measure', '--cmd', 'true', '--out', existing, '--trials'], '--trials needs a value'],
    ['unknown flag', measure('--trails', '5'), 'unknown flag --trails'],
    ['stray argument', ['measure', '--cmd', 'npm', 'test', '--trials', '5', '--out', existing], 'unexpected argument'],
    ['--rate 1.5', ['plan', '--rate', '1.5', '--confidence', '0.95'], '--rate must be a number from 0 to 1 (got "1.5")'],
    ['--rate -0.1', ['plan', '--rate', '-0.1'], '--rate must be a number from 0 to 1 (got "-0.1")'],
    ['--confidence 1', ['plan', '--rate', '0.2', '--confidence', '1'], '--confidence must be a number strictly between 0 and 1 (got "1")'],
    ['--confidence 0', ['plan', '--rate', '0.2', '--confidence', '0'], '--confidence must be a number strictly between 0 and 1 (got "0")'],
    ['--rate 0', ['plan', '--rate', '0', '--confidence', '0.95'], 'plan from the interval\'s upper end instead'],
    ['--rate 1', ['plan', '--rate', '1', '--confidence', '0.95'], 'deterministic failure, not a flake'],
    ['plan with neither form', ['plan', '--confidence', '0.95'], 'pass exactly one of --rate, --from'],
    ['policy --rate 0', ['policy', '--rate', '0', '--out', existing], 'no number of runs can be planned'],
    ['missing --from file', ['plan', '--from', join(dir, 'nope.json')], `--from ${join(dir, 'nope.json')}: cannot read it (no such file)`],
    ['--from not JSON', ['plan', '--from', join(dir, 'not-json.json')], 'not valid JSON'],
    ['--from wrong shape', ['plan', '--from', join(dir, 'bad-rate.json')], 'trials: Invalid input: expected number, received string'],
    ['--from a folder', ['policy', '--from', dir, '--out', existing], 'cannot read it (is a folder)'],
    ['--in torn line', ['facts', '--in', join(dir, 'torn.jsonl'), '--out', existing], 'line 1 is not valid JSON'],
    ['--in empty', ['facts', '--in', join(dir, 'existing.json'), '--out', join(dir, 'x.json')], 'line 1: trial: Invalid input'],
    ['proof with two sources', ['proof', '--cmd', 'true', '--runs', '3', '--plan', existing, '--out', existing], 'pass exactly one of --runs, --plan, --policy (got 2)'],
    ['report of an empty folder', ['report', '--dir', join(dir, 'empty')], 'rate.json: cannot read it (no such file)'],
    ['--lang fr', ['report', '--dir', dir, '--lang', 'fr'], '--lang must be one of en, ko (got "fr")'],
    ['unwritable --out', ['measure', '--cmd', 'true', '--trials', '1', '--out', join(dir, 'file', 'rate.json')], 'cannot write in'],
    ['unknown command', ['measur'], 'unknown command `measur`'],
    ['escape codes in a value', ['\u001b[31mmeasur\u001b[39m'], 'unknown command `measur`'],
    ['--trials given twice', measure('--trials', '20', '--trials', '30'), '--trials given twice (20 and 30); give it once'],
    ['--trials=… given twice', measure('--trials=20', '--trials', '20'), '--trials given twice (20 and 20)'],
    ['collect --out given twice', ['collect', '--cmd', 'true', '--trials', '2', '--out', existing, '--out', join(dir, 'b.jsonl')], '--out given twice'],
    ['plan --rate given twice', ['plan', '--rate', '0.2', '--rate', '0.3'], '--rate given twice (0.2 and 0.3)'],
    ['--cmd given twice', measure('--cmd', 'exit 3', '--trials', '2'), '--cmd given twice (true and "exit 3")'],
    // 2^31 - 1 ms is the longest delay a Node timer keeps; one more and it fires after 1 ms.
    ['--timeout-ms 2^31', measure('--trials', '1', '--timeout-ms', '2147483648'), '--timeout-ms must be at most 2147483647 ms'],
    ['--gap-ms 3e9', measure('--trials', '1', '--gap-ms', '3000000000'), '--gap-ms must be at most 2147483647 ms (about 24.9 days)'],
    ['observe --gap-ms 2^31', ['observe', '--cmd', 'true', '--slow-trials', '2', '--gap-ms', '2147483648', '--out', existing], '--gap-ms must be at most'],
    ['investigate --gap-ms 2^31', ['investigate', '--cmd', 'true', '--fixed-cmd', 'true', '--gap-ms', '2147483648', '--out-dir', dir], '--gap-ms must be at most'],
    ['unknown schema', ['schema', 'rates'], 'must be one of rate, runs_needed, facts'],
  ])('%s', async (_name, args, message) => {
    const result = await runCli(args)
    expect(result.code).toBe(2)
    expect(result.stdout).toBe('')
    expect(result.stderr).toContain(message)
    expect(result.stderr.trim().split('\n')).toHaveLength(1)
    expect(result.stderr).not.toMatch(/\n\s+at /)
    expect(result.stderr).not.toContain('\u001b')
    expect(readFileSync(existing, 'utf8')).toBe(before)
  })

  it('checks the output folder before running a single trial', async () => {
    const state = tempDir()
    const args = ['investigate', '--cmd', labCommand(state), '--fixed-cmd', 'true', '--out-dir', join(dir, 'file', 'out')]
    const result = await runCli(args)
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('--out-dir')
    // The lab job never ran: it would have left its counter in the state folder.
    expect(existsSync(join(state, 'state.json'))).toBe(false)
  })
})
