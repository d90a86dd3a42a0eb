import { renderRunnerFlags, RUNNERS, type RunnerInfo } from '../config/runners.js'
import { stripAnsi } from '../core/ansi.js'
import { DEFAULT_WIDTH, table, usageLines, wrap } from '../core/text-layout.js'
import { examplesBlock } from './help.js'
import type { RunnerAdapter } from '../session/runner-adapter.js'

/**
 * `flakeproof <runner>`: one entry per runner adapter. Each adapter is imported only by its own
 * command, since every runner is an optional peer dependency; `flakeproof playwright` is one more entry.
 */
export interface RunnerCommand {
  runner: RunnerInfo
  /** The line of `flakeproof --help`. */
  summary: string
  /** `flakeproof <runner> --help`, around the flags. */
  /** `notes`: paragraphs, wrapped to the terminal; `example`: commands that run in a user's project. */
  help: { title: string; usage: string; notes: string[]; example: string | readonly string[] }
  load(): Promise<RunnerAdapter>
  /**
   * An error of the runner's own, said in its words, with the exit code (`usage`: said as a usage
   * error, exit 2); undefined for any other error. Asked after flakeproof's own errors are told apart.
   */
  ownError?(error: unknown): { message: string; code: number } | { usage: string } | undefined
}

export const RUNNER_COMMANDS: readonly RunnerCommand[] = [
  {
    runner: RUNNERS.vitest,
    summary: 'run Vitest with the flakeproof plugin (no config change): flakeproof vitest --flaky-repeat 200',
    help: {
      title: "run Vitest with flakeproof's plugin, without touching the config",
      usage: '[--flaky-* flags] [any vitest run arguments]',
      notes: [
        'Any Vitest argument passes through: a file filter, -t <name pattern>, --project <name>.',
        'Writes: rate.json, runs_needed.json, facts.jsonl, only_when_fail.json, policy.json, observer.json, summary.json, flaky_report.md and report.html (proof: proof.json, proof_facts.jsonl) in --flaky-out.',
      ],
      example: ['npx flakeproof vitest --flaky-repeat 200 --flaky-observe', 'npx flakeproof vitest --flaky-proof'],
    },
    load: async () => (await import('../../plugin/vitest/cli.js')).vitestAdapter,
    ownError(error) {
      if ((error as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND' || !String(error).includes("'vitest")) return undefined
      return { usage: 'Vitest is not installed here; `npm i -D vitest` (3.2 to 5.x)' }
    },
  },
  {
    runner: RUNNERS.jest,
    summary: 'run Jest with the flakeproof reporter and runner: flakeproof jest --flaky-repeat 200 [jest args]',
    help: {
      title: "run Jest with flakeproof's reporter added and its runner around each project's, without touching the config",
      usage: '[--flaky-* flags] [any jest arguments]',
      notes: [
        'Any Jest argument passes through: a file filter, -t <name pattern>, --selectProjects <name>.',
        "--flaky-seed and --flaky-shuffle order the tests with Jest's own --randomize --seed (Jest 29.5 and later); the seed is recorded in facts.jsonl.",
        "Every project's test runner is wrapped by flakeproof's (its environment and setup files kept); ids carry its displayName.",
        'Writes the same files as `flakeproof vitest` in --flaky-out. Guide: docs/jest.md.',
      ],
      example: ['npx flakeproof jest --flaky-repeat 200 --flaky-observe', 'npx flakeproof jest --flaky-proof'],
    },
    load: async () => (await import('../../plugin/jest/cli.js')).jestAdapter,
    ownError(error) {
      // Jest's own verdict on its arguments (an unknown flag, a bad value), in its words; jest-validate
      // names the class, not the error.
      if ((error as object | undefined)?.constructor?.name !== 'ValidationError') return undefined
      // As `flakeproof vitest` says of a run Vitest stopped before its first test.
      return { message: `${stripAnsi((error as Error).message).trim()}\n[flakeproof] no test ran: Jest stopped before the first, and nothing was written`, code: 1 }
    },
  },
  {
    runner: RUNNERS.playwright,
    summary: 'run Playwright Test with the flakeproof reporter added: flakeproof playwright --flaky-repeat 20 [playwright test args]',
    help: {
      title: "run Playwright Test with flakeproof's reporter added to your reporters",
      usage: '[--flaky-* flags] [any playwright test arguments]',
      notes: [
        'Measuring is --repeat-each <n> --retries 0; a proof greps the exact titles of the tests it proves, with their --project.',
        "Playwright's own --shuffle <seed> orders files (and tests when fully parallel). Writes the same files as `flakeproof vitest` in --flaky-out.",
      ],
      example: 'npx flakeproof playwright --flaky-repeat 20 --project=desktop tests/cart.spec.ts',
    },
    load: async () => (await import('../../plugin/playwright/cli.js')).playwrightAdapter,
  },
]

/** `flakeproof <runner> --help` for `width` columns: its title, usage, the flags its adapter takes by group, notes and examples. */
export function renderRunnerHelp(command: RunnerCommand, width: number = DEFAULT_WIDTH): string {
  const { runner, help } = command
  return [
    ...wrap(`flakeproof ${runner.name}: ${help.title}`, width, 2, 0),
    '',
    ...usageLines(`Usage: flakeproof ${runner.name}`, help.usage, width),
    '',
    ...renderRunnerFlags(runner, width),
    ...table([{ label: '--help', text: 'show this help' }], width),
    '',
    ...help.notes.flatMap((note) => wrap(note, width)),
    '',
    ...examplesBlock(help.example, width),
    '',
  ].join('\n')
}
