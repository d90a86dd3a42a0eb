import { execFileSync } from 'node:child_process'
import { cpSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { ProofFileSchema, RateFileSchema } from '../../src/artifacts/schemas.js'
import { readArtifact, ROOT, runNodeIn, tempDir, VITEST_FIXTURE } from '../utils.js'

/**
 * The "Done when" of the Vitest adapter, as a user meets it: a fresh project that installs the
 * packed package next to Vitest, adds flakeproof() to its plugins, measures and proves. Run against
 * the oldest and the newest supported Vitest.
 */
describe.each(['4.1.12', '3.2.7'])('a fresh project with the packed flakeproof and vitest %s', (version) => {
  const project = tempDir('flakeproof-consumer-')
  const vitest = (args: string[], env: Record<string, string> = {}) => runNodeIn(project, [join(project, 'node_modules/vitest/vitest.mjs'), ...args], env)

  beforeAll(() => {
    const packs = tempDir('flakeproof-pack-')
    execFileSync('npm', ['pack', '--pack-destination', packs], { cwd: ROOT, stdio: 'ignore' })
    const tarball = join(packs, readdirSync(packs)[0] as string)
    cpSync(join(VITEST_FIXTURE, 'tests'), join(project, 'tests'), { recursive: true })
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }))
    writeFileSync(
      join(project, 'vitest.config.ts'),
      `import { flakeproof } from 'flakeproof/vitest'\nimport { defineConfig } from 'vitest/config'\n\nexport default defineConfig({ plugins: [flakeproof()], test: { include: ['tests/**/*.test.ts'] } })\n`,
    )
    writeFileSync(
      join(project, 'vitest.reporter.config.ts'),
      `import { defineConfig } from 'vitest/config'\n\nexport default defineConfig({ test: { include: ['tests/**/*.test.ts'], reporters: ['default', ['flakeproof/reporter', { outDir: 'alone' }]] } })\n`,
    )
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '-D', '-E', `vitest@${version}`, tarball], { cwd: project, stdio: 'ignore' })
  }, 300_000)

  it('measures exact per-test counts, and the proof passes for the fixed test and fails for the flaky one', async () => {
    const measured = await vitest(['run', '--', '--flaky-repeat', '200'])
    expect(measured.code).toBe(1) // the broken test
    const rate = readArtifact(join(project, '.flakeproof/rate.json'), RateFileSchema)
    const counts = Object.fromEntries((rate.tests ?? []).map((t) => [t.name, [t.trials, t.failures, t.verdict]]))
    expect(counts).toMatchObject({
      'fails on every fifth call': [200, 40, 'flaky'],
      'races when called quickly': [200, 40, 'flaky'],
      'always fails': [200, 200, 'broken'],
      'always passes': [200, 0, 'stable'],
      'expected failure': [200, 0, 'stable'],
      snapshot: [200, 0, 'stable'],
    })

    const flaky = await vitest(['run', '--', '--flaky-proof'])
    expect(flaky.code).toBe(1)
    expect(readArtifact(join(project, '.flakeproof/proof.json'), ProofFileSchema).passed).toBe(false)

    const fixed = await vitest(['run', '--', '--flaky-proof'], { FIXTURE_FIXED: '1' })
    expect(fixed.code).toBe(0)
    expect(readArtifact(join(project, '.flakeproof/proof.json'), ProofFileSchema)).toMatchObject({ passed: true, trials: 28, failures: 0 })
  })

  it("resolves the reporter alone by its package name, 'flakeproof/reporter'", async () => {
    const result = await vitest(['run', '--config', 'vitest.reporter.config.ts'])
    expect(result.code).toBe(1)
    const rate = readArtifact(join(project, 'alone/rate.json'), RateFileSchema)
    expect(rate.tests?.find((t) => t.name === 'always fails')).toMatchObject({ trials: 1, failures: 1, verdict: 'broken' })
  })
})
