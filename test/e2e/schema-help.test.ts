import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { COLLECT, FACTS, INGEST, INVESTIGATE, MEASURE, OBSERVE, PLAN, POLICY, PROOF, REPEAT, REPORT } from '../../src/config/options.js'
import { VITEST_FLAGS, VitestOptionsSchema } from '../../src/config/vitest-options.js'
import { ROOT, runCli } from '../utils.js'

describe('flakeproof schema', () => {
  it.each(['rate', 'runs_needed', 'facts', 'test_facts', 'only_when_fail', 'observer', 'policy', 'proof', 'summary', 'committed_policy', 'bisect'])('prints the JSON Schema of %s', async (name) => {
    const result = await runCli(['schema', name])
    expect(result.code).toBe(0)
    const schema = JSON.parse(result.stdout) as { type: string; required: string[]; $schema: string }
    expect(schema.type).toBe('object')
    expect(schema.$schema).toContain('json-schema.org')
    if (!name.endsWith('facts')) expect(schema.required).toContain('schema_version')
  })
})

describe('--help', () => {
  it.each(['measure', 'plan', 'collect', 'facts', 'observe', 'policy', 'proof', 'report', 'investigate', 'schema', 'bisect'])('documents %s', async (name) => {
    const result = await runCli([name, '--help'])
    expect(result.code).toBe(0)
    expect(result.stdout).toContain(`Usage: flakeproof ${name}`)
    expect(result.stdout).toContain('Example:')
  })

  it('flakeproof vitest --help and the README table list every --flaky-* flag with the default of the schema', async () => {
    const result = await runCli(['vitest', '--help'])
    expect(result.code).toBe(0)
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n')
    const defaults = VitestOptionsSchema.parse({}) as Record<string, unknown>
    for (const [flag, { key }] of Object.entries(VITEST_FLAGS)) {
      expect(result.stdout, flag).toContain(`  ${flag}`)
      // | `option` | `--flag …` | default | meaning |
      const row = readme.find((line) => line.startsWith(`| \`${key}\` | \`${flag}`))
      expect(row, `README row for ${flag}`).toBeDefined()
      const shown = row?.split(' | ')[2]?.replaceAll('`', '')
      expect(shown, flag).toBe(defaults[key] === undefined ? '–' : String(defaults[key]))
    }
  })

  it('the README names every flag of every command', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
    for (const { flags } of [MEASURE, COLLECT, PLAN, FACTS, OBSERVE, POLICY, PROOF, REPORT, INVESTIGATE, REPEAT, INGEST]) {
      for (const { name } of flags) expect(readme, `--${name}`).toContain(`--${name}`)
    }
  })

  it('lists every command and the exit codes', async () => {
    const result = await runCli(['--help'])
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('Exit codes: 0 done, 1 negative verdict')
  })
})
