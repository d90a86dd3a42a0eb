import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { VITEST_FLAGS } from '../../src/config/vitest-options.js'
import { ROOT, runCli } from '../utils.js'

describe('flakeproof schema', () => {
  it.each(['rate', 'runs_needed', 'facts', 'test_facts', 'only_when_fail', 'observer', 'policy', 'proof', 'summary'])('prints the JSON Schema of %s', async (name) => {
    const result = await runCli(['schema', name])
    expect(result.code).toBe(0)
    const schema = JSON.parse(result.stdout) as { type: string; required: string[]; $schema: string }
    expect(schema.type).toBe('object')
    expect(schema.$schema).toContain('json-schema.org')
    if (!name.endsWith('facts')) expect(schema.required).toContain('schema_version')
  })
})

describe('--help', () => {
  it.each(['measure', 'plan', 'collect', 'facts', 'observe', 'policy', 'proof', 'report', 'investigate', 'schema'])('documents %s', async (name) => {
    const result = await runCli([name, '--help'])
    expect(result.code).toBe(0)
    expect(result.stdout).toContain(`Usage: flakeproof ${name}`)
    expect(result.stdout).toContain('Example:')
  })

  it('flakeproof vitest --help lists every --flaky-* flag the parser takes, and the README table too', async () => {
    const result = await runCli(['vitest', '--help'])
    expect(result.code).toBe(0)
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
    for (const flag of Object.keys(VITEST_FLAGS)) {
      expect(result.stdout, flag).toContain(`  ${flag}`)
      expect(readme, flag).toContain(`\`${flag}`)
    }
  })

  it('lists every command and the exit codes', async () => {
    const result = await runCli(['--help'])
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('Exit codes: 0 done, 1 negative verdict')
  })
})
