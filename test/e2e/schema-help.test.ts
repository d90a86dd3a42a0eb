import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { COLLECT, EXPLAIN, FACTS, INGEST, INVESTIGATE, MEASURE, OBSERVE, PLAN, POLICY, PROOF, REPEAT, REPORT } from '../../src/config/options.js'
import { VITEST_FLAGS, VitestOptionsSchema } from '../../src/config/vitest-options.js'
import { ROOT, runCli } from '../utils.js'

describe('flakeproof schema', () => {
  it.each(['rate', 'runs_needed', 'facts', 'test_facts', 'only_when_fail', 'observer', 'policy', 'proof', 'summary', 'committed_policy', 'bisect', 'attribution'])('prints the JSON Schema of %s', async (name) => {
    const result = await runCli(['schema', name])
    expect(result.code).toBe(0)
    const schema = JSON.parse(result.stdout) as { type: string; required: string[]; $schema: string }
    expect(schema.type).toBe('object')
    expect(schema.$schema).toContain('json-schema.org')
    if (!name.endsWith('facts')) expect(schema.required).toContain('schema_version')
  })
})

/** The guide pages the README links to, by task: the README is only the front door. */
const GUIDES = ['commands.md', 'vitest.md', 'jest.md', 'other-runners.md', 'ci-and-policy.md', 'finding-the-cause.md', 'scale-out-and-history.md', 'reading-the-numbers.md']

describe('--help', () => {
  it.each(['measure', 'plan', 'collect', 'facts', 'observe', 'policy', 'proof', 'report', 'investigate', 'schema', 'bisect', 'explain'])('documents %s', async (name) => {
    const result = await runCli([name, '--help'])
    expect(result.code).toBe(0)
    expect(result.stdout).toContain(`Usage: flakeproof ${name}`)
    expect(result.stdout).toMatch(/^Examples?:$/m)
  })

  it('flakeproof vitest --help and the table of docs/vitest.md list every --flaky-* flag with the default of the schema', async () => {
    const result = await runCli(['vitest', '--help'])
    expect(result.code).toBe(0)
    const readme = readFileSync(join(ROOT, 'docs/vitest.md'), 'utf8').split('\n')
    const defaults = VitestOptionsSchema.parse({}) as Record<string, unknown>
    for (const [flag, { key }] of Object.entries(VITEST_FLAGS)) {
      expect(result.stdout, flag).toContain(`  ${flag}`)
      // | `option` | `--flag …` | default | meaning |
      const row = readme.find((line) => line.startsWith(`| \`${key}\` | \`${flag}`))
      expect(row, `docs/vitest.md row for ${flag}`).toBeDefined()
      const shown = row?.split(' | ')[2]?.replaceAll('`', '')
      expect(shown, flag).toBe(defaults[key] === undefined ? '–' : String(defaults[key]))
    }
  })

  it('the guides in docs/ (where the README sends users) name every flag of every command', () => {
    const readme = GUIDES.map((page) => readFileSync(join(ROOT, 'docs', page), 'utf8')).join('\n')
    for (const { flags } of [MEASURE, COLLECT, PLAN, FACTS, OBSERVE, POLICY, PROOF, REPORT, INVESTIGATE, REPEAT, INGEST, EXPLAIN]) {
      for (const { name } of flags) expect(readme, `--${name}`).toContain(`--${name}`)
    }
  })

  it.each(['measure', 'repeat', 'bisect', 'vitest', 'jest'])('flakeproof help %s prints what %s --help prints, in 80 columns when not a terminal', async (name) => {
    // Not a terminal, and no COLUMNS asking for another width: 80.
    const env = { COLUMNS: '' }
    const [viaHelp, viaFlag] = await Promise.all([runCli(['help', name], { env }), runCli([name, '--help'], { env })])
    expect(viaHelp.code).toBe(0)
    expect(viaHelp.stdout).toBe(viaFlag.stdout)
    expect(viaHelp.stdout).toContain(`Usage: flakeproof ${name}`)
    expect(viaHelp.stdout).not.toContain('Exit codes:')
    expect(viaHelp.stdout.split('\n').filter((line) => line.length > 80)).toEqual([])
  })

  it('flakeproof help <mistyped> says what was meant', async () => {
    const result = await runCli(['help', 'mesure'])
    expect(result.code).toBe(2)
    expect(result.stderr).toBe('flakeproof: unknown command `mesure`; did you mean `measure`? See `flakeproof --help`.\n')
  })

  it('lists every command and the exit codes', async () => {
    const result = await runCli(['--help'])
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('Exit codes: 0 done, 1 negative verdict')
  })
})
