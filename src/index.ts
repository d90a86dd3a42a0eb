/**
 * flakeproof's library surface: the exact statistics, the artifact schemas and the pipeline stages,
 * for adapters (Vitest, Jest) and scripts. The CLI is `flakeproof`; see the README.
 */
export * from './core/index.js'
export { ARTIFACT_SCHEMAS, type ArtifactName } from './artifacts/artifact-schemas.js'
export {
  type Fact,
  FactSchema,
  type ObserverFile,
  ObserverFileSchema,
  type OnlyWhenFailFile,
  OnlyWhenFailFileSchema,
  type PolicyFile,
  PolicyFileSchema,
  type ProofFile,
  ProofFileSchema,
  type RateFile,
  RateFileSchema,
  type RunsNeededFile,
  RunsNeededFileSchema,
  type SummaryFile,
  SummaryFileSchema,
} from './artifacts/schemas.js'
export type { ReportBundle } from './artifacts/bundle.js'
export { renderReport } from './artifacts/markdown.js'
export { FlakeproofError, type ErrorCode } from './errors.js'
export { analyzeFacts } from './pipeline/facts.js'
export { compareObservations, toObservation } from './pipeline/observe.js'
export { buildRunsNeeded, choosePlanningBasis, PLAN_CONFIDENCES } from './pipeline/plan.js'
export { decidePolicy } from './pipeline/policy.js'
export { buildSummary } from './pipeline/report.js'
export { type CommittedPolicy, CommittedPolicySchema, type PolicyEntry, type Quarantine } from './artifacts/committed-policy-schema.js'
export { mergeMeasurement } from './pipeline/committed-policy.js'
export {
  type EnforcedResult,
  type EnforcedTest,
  judgeEnforcedRun,
  listQuarantined,
  proofRunsOf,
  type QuarantinedTest,
  type Release,
  releaseProven,
} from './pipeline/enforcement.js'
