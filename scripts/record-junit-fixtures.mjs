#!/usr/bin/env node
// Re-records the report fixtures of test/fixtures/recorded/ from the
// real tools on this machine, never by hand (docs/other-runners.md): each producer's generator project
// (test/fixtures/<producer>-project/) is copied to a temporary folder and run N times with a fresh
// counter folder (FLAKE_STATE), and each run's report is copied into the fixture folder with a README
// naming the tool, its version and the command.
//
//   node scripts/record-junit-fixtures.mjs            # every variant
//   node scripts/record-junit-fixtures.mjs jest-junit surefire
import { execFileSync, spawnSync } from 'node:child_process'
import { closeSync, cpSync, existsSync, openSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const bin = (path) => join(ROOT, 'node_modules', path)
const version = (name) => JSON.parse(readFileSync(bin(`${name}/package.json`), 'utf8')).version
const toolVersion = (command, args) => execFileSync(command, args, { encoding: 'utf8' }).trim().split('\n')[0]

const JEST = ['node', bin('jest/bin/jest.js'), '--ci']
const JEST_RECIPE = { JEST_JUNIT_CLASSNAME: '{filepath}', JEST_JUNIT_ANCESTOR_SEPARATOR: ' › ', JEST_JUNIT_TITLE: '{classname} › {title}', JEST_JUNIT_ADD_FILE_ATTRIBUTE: 'true' }
const PLAYWRIGHT = ['node', bin('@playwright/test/cli.js'), 'test']

/**
 * Each variant: its project, runs, the command (`{report}` becomes the run's report path, `{work}` a
 * scratch folder), extra environment, and the tool named in the README. `folder`: the run's report is
 * every XML below a folder (Surefire writes one file per class).
 */
const VARIANTS = {
  pytest: { project: 'pytest', runs: 6, command: ['python3', '-m', 'pytest', '-p', 'no:cacheprovider', '--junitxml={report}'], tool: () => `pytest ${toolVersion('python3', ['-m', 'pytest', '--version'])}` },
  'pytest-rerunfailures': {
    project: 'pytest',
    runs: 6,
    command: ['/usr/bin/python3', '-m', 'pytest', '-p', 'no:cacheprovider', '--reruns', '2', '--junitxml={report}'],
    tool: () => `Debian's ${toolVersion('/usr/bin/python3', ['-m', 'pytest', '--version'])} with pytest-rerunfailures ${toolVersion('/usr/bin/python3', ['-c', 'import importlib.metadata as m; print(m.version("pytest-rerunfailures"))'])}`,
  },
  'jest-junit': { project: 'jest', runs: 6, command: JEST, env: { JEST_JUNIT_OUTPUT_FILE: '{report}' }, tool: () => `Jest ${version('jest')} with jest-junit ${version('jest-junit')}, its defaults` },
  'jest-junit-recipe': {
    project: 'jest',
    runs: 6,
    command: JEST,
    env: { JEST_JUNIT_OUTPUT_FILE: '{report}', ...JEST_RECIPE },
    tool: () => `Jest ${version('jest')} with jest-junit ${version('jest-junit')}, ${Object.entries(JEST_RECIPE).map(([k, v]) => `${k}='${v}'`).join(' ')}`,
  },
  vitest: { project: 'vitest-junit', runs: 6, command: ['node', bin('vitest/vitest.mjs'), 'run', '--reporter=junit', '--outputFile={report}'], tool: () => `Vitest ${version('vitest')} junit reporter` },
  'vitest-projects': {
    project: 'vitest-junit',
    runs: 3,
    command: ['node', bin('vitest/vitest.mjs'), 'run', '--config', 'vitest.projects.config.js', '--reporter=junit', '--outputFile={report}'],
    tool: () => `Vitest ${version('vitest')} junit reporter, two projects running the same files`,
  },
  mocha: { project: 'mocha', runs: 6, command: ['node', bin('mocha/bin/mocha.js')], env: { MOCHA_FILE: '{report}' }, tool: () => `mocha ${version('mocha')} with mocha-junit-reporter ${version('mocha-junit-reporter')}` },
  'node-test': { project: 'node-test', runs: 6, command: ['node', '--test', '--test-reporter=junit', '--test-reporter-destination={report}', 'a.test.cjs', 'b.test.cjs'], tool: () => `node ${process.version} --test --test-reporter=junit` },
  playwright: {
    project: 'playwright',
    runs: 6,
    command: [...PLAYWRIGHT, '--retries', '1'],
    env: { PLAYWRIGHT_JUNIT_OUTPUT_NAME: '{report}', PLAYWRIGHT_JUNIT_INCLUDE_RETRIES: '1', PLAYWRIGHT_OUTPUT_DIR: '{work}/test-results' },
    tool: () => `@playwright/test ${version('@playwright/test')}, PLAYWRIGHT_JUNIT_INCLUDE_RETRIES=1`,
  },
  'playwright-repeat-each': {
    project: 'playwright',
    runs: 2,
    command: [...PLAYWRIGHT, '--repeat-each', '3', '--project=one'],
    env: { PLAYWRIGHT_JUNIT_OUTPUT_NAME: '{report}', PLAYWRIGHT_OUTPUT_DIR: '{work}/test-results' },
    tool: () => `@playwright/test ${version('@playwright/test')}, --repeat-each 3`,
  },
  surefire: {
    project: 'surefire',
    runs: 6,
    folder: 'target/surefire-reports',
    command: ['mvn', '-o', '-q', 'test', '-Dsurefire.rerunFailingTestsCount=2'],
    tool: () => `Maven Surefire 3.2.5 (JUnit Jupiter 5.10.2), ${toolVersion('mvn', ['--version']).replace(/\x1b\[[0-9;]*m/g, '')}, offline`,
  },
  cargo: {
    project: 'cargo',
    runs: 6,
    log: true,
    command: ['cargo', 'test', '--offline', '--workspace', '--no-fail-fast'],
    env: { CARGO_TARGET_DIR: '{work}/target', RUST_BACKTRACE: '0' },
    tool: () => toolVersion('cargo', ['--version']),
  },
}

const wanted = process.argv.slice(2)
for (const name of wanted.length > 0 ? wanted : Object.keys(VARIANTS)) {
  const variant = VARIANTS[name]
  if (!variant) throw new Error(`unknown variant ${name}; one of ${Object.keys(VARIANTS).join(', ')}`)
  record(name, variant)
}

function record(name, variant) {
  const work = mkdtempSync(join(tmpdir(), `record-${name}-`))
  const project = join(work, 'project')
  cpSync(join(ROOT, 'test/fixtures', `${variant.project}-project`), project, { recursive: true })
  symlinkSync(join(ROOT, 'node_modules'), join(project, 'node_modules'))
  const state = join(work, 'state')
  mkdirSync(state)
  const out = join(ROOT, 'test/fixtures/recorded', name)
  rmSync(out, { recursive: true, force: true })
  mkdirSync(out, { recursive: true })
  for (let run = 1; run <= variant.runs; run++) {
    const report = join(work, `report-${run}.xml`)
    const fill = (text) => text.replaceAll('{report}', report).replaceAll('{work}', work)
    const [command, ...args] = variant.command.map(fill)
    const env = { ...process.env, FLAKE_STATE: state, ...Object.fromEntries(Object.entries(variant.env ?? {}).map(([k, v]) => [k, fill(v)])) }
    // A log is stdout and stderr in one file, interleaved as `2>&1` keeps them (cargo prints `Running` on stderr).
    const log = variant.log ? openSync(join(out, `run-${run}.log`), 'w') : undefined
    const stdio = log === undefined ? 'pipe' : ['ignore', log, log]
    const result = spawnSync(command, args, { cwd: project, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, stdio })
    if (log !== undefined) closeSync(log)
    if (result.error) throw result.error
    if (variant.folder) cpSync(join(project, variant.folder), join(out, `run-${run}`), { recursive: true, filter: (path) => !path.endsWith('.txt') })
    else if (existsSync(report)) cpSync(report, join(out, `run-${run}.xml`))
    else if (!variant.log) throw new Error(`${name} run ${run} wrote no report (exit ${result.status}):\n${result.stdout}\n${result.stderr}`)
    if (variant.folder) rmSync(join(project, variant.folder), { recursive: true, force: true })
    process.stdout.write(`${name} run ${run}: exit ${result.status}\n`)
  }
  const shown = variant.command.map((word) => (/[\s{}]/.test(word) ? `'${word}'` : word)).join(' ').replaceAll(ROOT, '.')
  const env = Object.entries(variant.env ?? {}).map(([k, v]) => `${k}='${v}' `).join('')
  writeFileSync(
    join(out, 'README.md'),
    `Recorded from the real tool by \`node scripts/record-junit-fixtures.mjs ${name}\` (never edited by hand):\n${variant.tool()};\n` +
      `${variant.runs} runs of \`${env}${shown}${variant.log ? ' 2>&1' : ''}\` in a copy of test/fixtures/${variant.project}-project with one fresh FLAKE_STATE counter folder.\n`,
  )
  rmSync(work, { recursive: true, force: true })
}
