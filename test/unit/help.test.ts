import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { renderOverview, unknownCommand, unknownFlag } from '../../src/cli/help.js'
import { renderRunnerHelp, RUNNER_COMMANDS } from '../../src/cli/runner-commands.js'
import { type CommandSpec, defineCommand, renderHelp } from '../../src/cli/spec.js'
import { FLAG_GROUPS, VITEST_FLAGS } from '../../src/config/vitest-options.js'
import { runnerFlags } from '../../src/config/runners.js'
import { bisect } from '../../src/cli/commands/bisect.js'
import { collect } from '../../src/cli/commands/collect.js'
import { facts } from '../../src/cli/commands/facts.js'
import { history } from '../../src/cli/commands/history.js'
import { ingest } from '../../src/cli/commands/ingest.js'
import { investigate } from '../../src/cli/commands/investigate.js'
import { measure } from '../../src/cli/commands/measure.js'
import { merge } from '../../src/cli/commands/merge.js'
import { observe } from '../../src/cli/commands/observe.js'
import { plan } from '../../src/cli/commands/plan.js'
import { policy } from '../../src/cli/commands/policy.js'
import { proof } from '../../src/cli/commands/proof.js'
import { repeat } from '../../src/cli/commands/repeat.js'
import { report } from '../../src/cli/commands/report.js'
import { schema } from '../../src/cli/commands/schema.js'

const COMMANDS: CommandSpec[] = [measure, plan, collect, facts, observe, policy, proof, report, investigate, schema, repeat, ingest, merge, history, bisect]
const WIDTHS = [80, 120]

/** Lines wider than `width`, with their width, so a failure shows them. */
const tooWide = (text: string, width: number): string[] => text.split('\n').filter((line) => line.length > width)

describe('help fits the terminal', () => {
  it.each(WIDTHS)('every command at %d columns', (width) => {
    for (const spec of COMMANDS) expect(tooWide(renderHelp(spec, width), width), spec.name).toEqual([])
    for (const command of RUNNER_COMMANDS) expect(tooWide(renderRunnerHelp(command, width), width), command.runner.name).toEqual([])
    expect(tooWide(renderOverview(COMMANDS, RUNNER_COMMANDS, width), width)).toEqual([])
  })

  it('lays a command out as written here (a made-up command, width 60)', () => {
    const spec = defineCommand({
      name: 'demo',
      summary: 'a command made up for this test, whose summary is longer than one line of sixty',
      flags: [
        { name: 'runs', placeholder: '<n>', description: 'how many times', value: z.string() },
        { name: 'out', placeholder: '<file>', description: 'where to write the result of all the runs', value: z.string().optional() },
      ],
      schema: z.object({}),
      writes: 'out.json: runs, failures',
      example: 'npx flakeproof demo --runs 20 --out .flakeproof/demo.json --and-a-long-tail-flag',
      run: async () => 0,
    })
    expect(renderHelp(spec, 60).split('\n')).toEqual([
      'flakeproof demo: a command made up for this test, whose',
      '  summary is longer than one line of sixty',
      '',
      'Usage: flakeproof demo --runs <n> [--out <file>]',
      '',
      'Flags:',
      '  --runs <n>    how many times (required)',
      '  --out <file>  where to write the result of all the runs',
      '  --help        show this help',
      '',
      'Writes: out.json: runs, failures',
      '',
      'Example:',
      // With " \\", "  npx flakeproof demo --runs 20 --out .flakeproof/demo.json" would be 61 columns:
      // broken before --out, which stays with its value.
      '  npx flakeproof demo --runs 20 \\',
      '    --out .flakeproof/demo.json --and-a-long-tail-flag',
      '',
    ])
  })
})

describe('help is derived from the declarations', () => {
  it('every flag of every command is in its help', () => {
    for (const spec of COMMANDS) {
      const help = renderHelp(spec, 80)
      for (const flag of spec.flags) expect(help, `${spec.name} --${flag.name}`).toContain(`  --${flag.name}`)
    }
  })

  it.each(RUNNER_COMMANDS.map((c) => [c.runner.name, c] as const))('flakeproof %s --help lists each flag it takes once, under its group, groups in order', (_name, command) => {
    const lines = renderRunnerHelp(command, 80).split('\n')
    const taken = Object.keys(runnerFlags(command.runner))
    const listed = lines.flatMap((line) => /^ {2}(--flaky-[a-z-]+)/.exec(line)?.[1] ?? [])
    expect(listed.sort()).toEqual([...taken].sort())
    const headings = Object.values(FLAG_GROUPS)
    const shown = lines.filter((line) => headings.includes(line.replace(/:$/, '') as (typeof headings)[number])).map((line) => line.replace(/:$/, ''))
    expect(shown).toEqual(headings.filter((h) => shown.includes(h)))
    for (const flag of taken) {
      const { group } = VITEST_FLAGS[flag as keyof typeof VITEST_FLAGS]
      const at = lines.findIndex((line) => line.startsWith(`  ${flag}`))
      const heading = lines.slice(0, at).reverse().find((line) => line.endsWith(':') && !line.startsWith(' '))
      expect(heading, flag).toBe(`${FLAG_GROUPS[group]}:`)
    }
  })

  it('the overview names every command and every runner', () => {
    const overview = renderOverview(COMMANDS, RUNNER_COMMANDS, 80)
    for (const name of [...COMMANDS.map((c) => c.name), ...RUNNER_COMMANDS.map((r) => r.runner.name)]) expect(overview).toMatch(new RegExp(`^  ${name} `, 'm'))
  })
})

describe('examples run in a user project', () => {
  const examples = [...COMMANDS.flatMap((c) => [c.example].flat()), ...RUNNER_COMMANDS.flatMap((r) => [r.help.example].flat())]

  it.each(examples)('%s', (example) => {
    expect(example).toMatch(/^npx flakeproof [a-z]+ /)
    // Nothing that exists only in this repository.
    expect(example).not.toMatch(/examples\/|test\/fixtures|src\/cache|v1\.4\.0/)
  })
})

describe('usage errors say what was meant', () => {
  it.each([
    [unknownCommand('mesure', ['measure', 'plan', 'vitest']), 'unknown command `mesure`; did you mean `measure`?'],
    [unknownCommand('zzz', ['measure', 'plan', 'vitest']), 'unknown command `zzz`; commands: measure, plan, vitest'],
    [unknownFlag('--trails', ['cmd', 'trials', 'out']), 'unknown flag --trails; did you mean --trials?'],
    [unknownFlag('--hlep', ['cmd', 'trials', 'out']), 'unknown flag --hlep; did you mean --help?'],
    [unknownFlag('--zzz', ['cmd', 'trials', 'out']), 'unknown flag --zzz'],
  ])('%s', (message, expected) => {
    expect(message).toBe(expected)
  })
})
