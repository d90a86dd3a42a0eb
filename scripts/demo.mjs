// npm run demo: build if needed, investigate the bundled lab job, then measure, observe and prove
// the Vitest example; print the reports and where every file is.
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'

const root = join(import.meta.dirname, '..')
const bin = join(root, 'dist/src/cli/bin.js')

function newestMtime(dir) {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .reduce((newest, entry) => Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs), 0)
}

function run(command, args) {
  const result = spawnSync(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' })
  if (result.error) throw result.error
  return result
}

function listFiles(dir) {
  console.log('Files:')
  for (const name of readdirSync(join(root, dir)).sort()) console.log(`  ${relative(root, join(root, dir, name))}`)
}

/** report.html is written with every report; say where, so it can be opened in a browser. */
function printHtmlReport(dir) {
  const path = join(root, dir, 'report.html')
  if (existsSync(path)) console.log(`\nHTML report (open it in a browser): ${relative(root, path)}`)
  else console.log(`\nno report.html in ${dir}`)
}

if (!existsSync(bin) || newestMtime(join(root, 'src')) > statSync(bin).mtimeMs) {
  console.log('building flakeproof (npm run build)…')
  const build = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' })
  if (build.status !== 0) process.exit(build.status ?? 1)
}

// A fresh counter, so the run is the same every time: calls 5, 10, 15, … fail.
const outDir = '.flakeproof/lab'
const state = '.flakeproof/lab-state'
rmSync(join(root, state), { recursive: true, force: true })
const job = `node examples/lab/job.js --state ${state}`
console.log(`\n$ flakeproof investigate --cmd "${job}" --fixed-cmd "${job} --fixed" --out-dir ${outDir}\n`)
console.log('(200 quick trials, 20 trials with 2 s gaps, then the proof: about a minute)\n')
const investigation = run(process.execPath, [bin, 'investigate', '--cmd', job, '--fixed-cmd', `${job} --fixed`, '--out-dir', outDir])

const reportPath = join(root, outDir, 'flaky_report.md')
if (existsSync(reportPath)) console.log(`\n${readFileSync(reportPath, 'utf8')}`)
listFiles(outDir)
printHtmlReport(outDir)
// Its JSON result (summary.json) is on disk with the rest; the report above says what it holds.
console.log(`\nsummary: ${relative(root, join(root, outDir, 'summary.json'))}`)
if (investigation.status !== 0) process.exit(investigation.status ?? 1)

// The Vitest example: a token cache with a refresh race (examples/vitest-basic).
const vitest = join(root, 'node_modules/vitest/vitest.mjs')
const example = 'examples/vitest-basic'
const exampleOut = `${example}/.flakeproof`
rmSync(join(root, exampleOut), { recursive: true, force: true })
console.log(`\n$ npx vitest run --root ${example} -- --flaky-repeat 200 --flaky-observe`)
console.log('(200 quick repetitions of each test, then 20 with 2 s gaps of each one that failed: about 45 s)\n')
const measured = spawnSync(process.execPath, [vitest, 'run', '--root', example, '--', '--flaky-repeat', '200', '--flaky-observe'], { cwd: root, stdio: 'inherit' })
if (measured.status !== 0) process.exit(measured.status ?? 1)

console.log(`\n$ EXAMPLE_FIXED=1 npx vitest run --root ${example} -- --flaky-proof`)
const proof = spawnSync(process.execPath, [vitest, 'run', '--root', example, '--', '--flaky-proof'], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, EXAMPLE_FIXED: '1' },
})
const exampleReport = join(root, exampleOut, 'flaky_report.md')
if (existsSync(exampleReport)) console.log(`\n${readFileSync(exampleReport, 'utf8')}`)
listFiles(exampleOut)
printHtmlReport(exampleOut)
if (proof.status !== 0) process.exit(proof.status ?? 1)

// The Jest example: a rate limiter refusing every 5th call, beside a snapshot and a fake-timer test
// (examples/jest-basic), through `flakeproof jest`: Jest's own config, with flakeproof's files added.
const jestExample = 'examples/jest-basic'
const jestOut = `${jestExample}/.flakeproof`
rmSync(join(root, jestOut), { recursive: true, force: true })
// As it runs, pasteable from the repository root: the example has no node_modules of its own to find `flakeproof` in.
console.log(`\n$ (cd ${jestExample} && node ../../dist/src/cli/bin.js jest --flaky-repeat 200 --flaky-observe --flaky-gap-ms 500 --silent)`)
console.log('(200 in-process copies of each test, then 20 with 0.5 s gaps of the one that failed: about 15 s)\n')
const jestRun = (args, env = {}) =>
  spawnSync(process.execPath, [bin, 'jest', ...args], { cwd: join(root, jestExample), stdio: ['ignore', 'inherit', 'pipe'], encoding: 'utf8', env: { ...process.env, ...env } })
// Jest prints each failed copy; the demo shows flakeproof's summary (the last lines) and its report.
// The summary starts at the line that is ` flakeproof ` alone at its start (its next steps name `npx flakeproof` too).
const showSummary = (result) => console.log(result.stderr.slice(result.stderr.lastIndexOf('\n flakeproof ') + 1))
const jestMeasured = jestRun(['--flaky-repeat', '200', '--flaky-observe', '--flaky-gap-ms', '500', '--silent'])
showSummary(jestMeasured)
if (jestMeasured.status !== 0) process.exit(jestMeasured.status ?? 1)
console.log(`\n$ (cd ${jestExample} && EXAMPLE_FIXED=1 node ../../dist/src/cli/bin.js jest --flaky-proof --silent)`)
const jestProof = jestRun(['--flaky-proof', '--silent'], { EXAMPLE_FIXED: '1' })
showSummary(jestProof)
const jestReport = join(root, jestOut, 'flaky_report.md')
if (existsSync(jestReport)) console.log(`\n${readFileSync(jestReport, 'utf8')}`)
listFiles(jestOut)
printHtmlReport(jestOut)
process.exit(jestProof.status ?? 1)
