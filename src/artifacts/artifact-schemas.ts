import { AttributionFileSchema } from './attribution-schema.js'
import { BisectFileSchema } from './bisect-schema.js'
import { CommittedPolicySchema } from './committed-policy-schema.js'
import { ConditionsFileSchema } from './conditions-schema.js'
import { HistoryFileSchema, HistoryRecordSchema } from './history-schemas.js'
import {
  FactSchema,
  ObserverFileSchema,
  OnlyWhenFailFileSchema,
  PolicyFileSchema,
  ProofFileSchema,
  RateFileSchema,
  RunsNeededFileSchema,
  SummaryFileSchema,
} from './schemas.js'
import { TestFactSchema } from './test-schemas.js'

/**
 * `flakeproof schema <name>`: the names users type, and the file each describes. Kept apart from
 * schemas.ts so a command that writes one artifact does not build every other artifact's schema at
 * start-up (bench/startup.mjs).
 */
export const ARTIFACT_SCHEMAS = {
  rate: { file: 'rate.json', schema: RateFileSchema },
  runs_needed: { file: 'runs_needed.json', schema: RunsNeededFileSchema },
  facts: { file: 'facts.jsonl (one line, command mode)', schema: FactSchema },
  test_facts: { file: 'facts.jsonl (one line, test mode)', schema: TestFactSchema },
  only_when_fail: { file: 'only_when_fail.json', schema: OnlyWhenFailFileSchema },
  observer: { file: 'observer.json', schema: ObserverFileSchema },
  policy: { file: 'policy.json', schema: PolicyFileSchema },
  proof: { file: 'proof.json', schema: ProofFileSchema },
  summary: { file: 'summary.json', schema: SummaryFileSchema },
  committed_policy: { file: 'flakeproof.policy.json (committed, docs/contracts.md §9)', schema: CommittedPolicySchema },
  history: { file: 'history.json', schema: HistoryFileSchema },
  history_facts: { file: 'history/*.jsonl (one line: one test of one ordinary run)', schema: HistoryRecordSchema },
  conditions: { file: 'conditions.json', schema: ConditionsFileSchema },
  attribution: { file: 'attribution.json (whose failure each failed test of a red run is)', schema: AttributionFileSchema },
  bisect: { file: 'bisect.json', schema: BisectFileSchema },
} as const
/** A name `flakeproof schema <name>` accepts: rate, facts, plan, policy, … */
export type ArtifactName = keyof typeof ARTIFACT_SCHEMAS
