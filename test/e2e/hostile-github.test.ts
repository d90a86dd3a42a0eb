import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCliIn, vitestProject } from '../hostile.js'
import { tempDir } from '../utils.js'
import { workflowCommands } from '../workflow-harness.js'

/**
 * Under GitHub Actions (docs/contracts.md §8), every line flakeproof prints is read by the runner for
 * workflow commands: a test name, a command, a quarantine's reason or evidence that holds a newline
 * then `::error::`, or `##[add-mask]` anywhere, must not become one (issue 19 item 5). Each case reads
 * the output as the runner does (test/workflow-harness.ts `workflowCommands`) and finds only the
 * annotations flakeproof meant, their text intact once the runner unescapes it.
 */

const GITHUB = { GITHUB_ACTIONS: 'true' }
const INJECTED = '\n::error::INJECTED ##[add-mask]MASKED'
const commandsIn = (result: { stdout: string; stderr: string }) => workflowCommands(`${result.stdout}\n${result.stderr}`)

describe('commands under GITHUB_ACTIONS', () => {
  it('a command holding a newline and ::add-mask:: is one escaped annotation, and its JSON no command', async () => {
    const dir = tempDir('flakeproof-hostile-')
    const cmd = `exit 1 #${INJECTED}`
    const result = await runCliIn(dir, ['measure', '--cmd', cmd, '--trials', '2', '--out', 'rate.json'], GITHUB)
    expect(result.code, result.stderr).toBe(0)
    expect(workflowCommands(result.stdout)).toEqual([])
    const found = workflowCommands(result.stderr)
    expect(found.map((c) => [c.command, c.properties])).toEqual([['error', 'title=flakeproof%3A broken command']])
    // Unescaped by the runner, the message is the command as typed.
    expect(found[0]?.data).toBe(`${cmd} failed 2 of 2 times (rate 100.0%, interval 34.2% – 100.0%)`)
    expect(JSON.parse(result.stdout)).toMatchObject({ command: cmd })
  })

  it('a usage error quoting the value it received stays one line, and no command', async () => {
    const dir = tempDir('flakeproof-hostile-')
    const result = await runCliIn(dir, [`measur${INJECTED}`], GITHUB)
    expect(result.code).toBe(2)
    expect(commandsIn(result)).toEqual([])
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^flakeproof: unknown command `measur%0A::error::INJECTED ##%5Badd-mask\]MASKED`; commands: /)])
  })

  it('##[add-mask] inside a JSON result is escaped in JSON, which still reads the same', async () => {
    const dir = tempDir('flakeproof-hostile-')
    const cmd = 'true ##[add-mask]MASKED'
    const result = await runCliIn(dir, ['measure', '--cmd', cmd, '--trials', '1', '--out', 'rate.json'], GITHUB)
    expect(result.code, result.stderr).toBe(0)
    expect(commandsIn(result)).toEqual([])
    expect(JSON.parse(result.stdout)).toMatchObject({ command: cmd })
  })

  it('outside GitHub Actions the same output is left as it is', async () => {
    const dir = tempDir('flakeproof-hostile-')
    const cmd = 'true ##[add-mask]MASKED'
    const result = await runCliIn(dir, ['measure', '--cmd', cmd, '--trials', '1', '--out', 'rate.json'])
    expect(result.stdout).toContain('"command": "true ##[add-mask]MASKED"')
  })
})

/** A test named to inject, and the committed policy that quarantines it (its reason and evidence inject too). */
const EVIL = `evil${INJECTED}`
const EVIL_ID = `tests/evil.test.ts > ${EVIL}`
function evilProject(dir: string, fails: boolean): void {
  vitestProject(dir, {
    'tests/evil.test.ts': [
      "import { expect, test } from 'vitest'",
      `test(${JSON.stringify(EVIL)}, () => {`,
      `  expect(${fails ? 1 : 2}).toBe(2)`,
      '})',
      '',
    ].join('\n'),
  })
  const policy = {
    schema_version: 1,
    confidence: 0.95,
    tests: {
      [EVIL_ID]: {
        project: '',
        file: 'tests/evil.test.ts',
        name: EVIL,
        trials: 20,
        failures: 5,
        rate: 0.25,
        ci_low: 0.1119,
        ci_high: 0.4687,
        verdict: 'flaky',
        retry_budget: 0,
        quarantine_after: 3,
        green_runs_required: 3,
        failed_runs: 3,
        quarantine: { since: '2026-11-02', reason: `failed${INJECTED} reason`, evidence: [`first error${INJECTED} evidence`] },
      },
    },
  }
  writeFileSync(join(dir, 'flakeproof.policy.json'), `${JSON.stringify(policy, null, 2)}\n`)
}

describe('Vitest runs under GITHUB_ACTIONS', { timeout: 60_000 }, () => {
  it('a proof prints the injected name, reason and evidence as plain text', async () => {
    const dir = tempDir('flakeproof-hostile-')
    evilProject(dir, false)
    const result = await runCliIn(dir, ['vitest', '--flaky-proof', '--flaky-policy', 'flakeproof.policy.json'], GITHUB)
    expect(result.code, result.stdout + result.stderr).toBe(0)
    expect(result.stdout).toContain('evil%0A::error::INJECTED ##%5Badd-mask]MASKED  3 of 3 runs, 0 failed')
    expect(commandsIn(result)).toEqual([])
  })

  it('an enforced run prints the quarantined failure, its reason and evidence escaped, and one warning annotation', async () => {
    const dir = tempDir('flakeproof-hostile-')
    evilProject(dir, true)
    const result = await runCliIn(dir, ['vitest', '--flaky-enforce', '--flaky-policy', 'flakeproof.policy.json'], GITHUB)
    expect(result.code, result.stdout + result.stderr).toBe(0)
    const found = commandsIn(result)
    expect(found.map((c) => c.command)).toEqual(['warning'])
    // The annotation's text, as the runner shows it: the reason whole, newline and all.
    expect(found[0]?.data).toContain(`it is quarantined (failed${INJECTED} reason)`)
    expect(result.stdout).toContain('since 2026-11-02: failed%0A::error::INJECTED ##%5Badd-mask]MASKED reason')
    expect(result.stdout).toContain('evidence: first error%0A::error::INJECTED ##%5Badd-mask]MASKED evidence')
  })
})
