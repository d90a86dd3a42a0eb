import { join } from 'node:path'
import { assertWritable } from '../../artifacts/write.js'
import { writeBisect } from '../../artifacts/write-bisect.js'
import { headline } from '../../artifacts/bisect-report.js'
import { stripAnsi } from '../../core/ansi.js'
import { BISECT } from '../../config/options.js'
import { bisectCommand } from '../../pipeline/bisect.js'
import { ownFile } from '../../own-files.js'
import type { BisectSubject } from '../../pipeline/bisect-observe.js'
import { defineCommand } from '../spec.js'

export const bisect = defineCommand({
  name: 'bisect',
  summary: 'find the commit that changed a failure rate (e.g. 2% → 30%): Bayesian, calibrated, with batches of in-process repetitions',
  usage:
    '--good <rev> [--bad <rev>] (--cmd "<command>" | --vitest "<vitest args>" | --jest "<jest args>") [--setup "<command>"] [--prior-from <rate.json|history dir>] [--optimize <executions|time>] [--merges] [--confidence <c>] [--max-executions <n>] [--timeout-ms <ms>] [--out-dir <dir>]',
  writes: 'bisect.json (culprit, its probability, alternatives, rates before/after, every visit), bisect.md, bisect.html in --out-dir; temporary git worktrees under the OS temp folder, removed at the end',
  example: 'npx flakeproof bisect --good HEAD~50 --cmd "npm test" --setup "npm ci"',
  ...BISECT,
  async run(o, { print, context }) {
    const subject: BisectSubject =
      o.cmd !== undefined ? { kind: 'cmd', command: o.cmd, timeoutMs: o['timeout-ms'] ?? null } : { kind: o.vitest !== undefined ? 'vitest' : 'jest', args: (o.vitest ?? o.jest) as string }
    assertWritable(join(o['out-dir'], 'bisect.json'), '--out-dir')
    const found = await bisectCommand(
      {
        cwd: process.cwd(),
        good: o.good,
        bad: o.bad,
        merges: o.merges,
        subject,
        setup: o.setup,
        confidence: o.confidence.value,
        maxExecutions: o['max-executions'],
        optimize: o.optimize,
        priorFrom: o['prior-from'],
        self: { node: process.execPath, bin: ownFile('src/cli/bin.js') },
      },
      context,
    )
    const file = writeBisect(o['out-dir'], found)
    print({ out_dir: o['out-dir'], status: file.status, culprit: file.culprit, alternatives: file.alternatives.slice(0, 2), executions: file.executions, process_starts: file.process_starts })
    context.log(stripAnsi(headline(file)).replaceAll('`', ''))
    context.log(`${file.executions} executions in ${file.process_starts} process starts; bisect.json, bisect.md and bisect.html in ${o['out-dir']}`)
    if (file.status === 'interrupted') return 130
    return file.status === 'found' ? 0 : 1
  },
})
