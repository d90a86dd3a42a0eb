import type { AttributionFile } from './attribution-schema.js'
import type { ConditionsFile } from './conditions-schema.js'
import type { ObserverFile, OnlyWhenFailFile, PolicyFile, ProofFile, RateFile, RunsNeededFile } from './schemas.js'

/** Every JSON artifact of one measurement, as the report and the writer take them: rate.json required. */
export interface ReportBundle {
  rate: RateFile
  runsNeeded?: RunsNeededFile | undefined
  onlyWhenFail?: OnlyWhenFailFile | undefined
  observer?: ObserverFile | undefined
  policy?: PolicyFile | undefined
  proof?: ProofFile | undefined
  conditions?: ConditionsFile | undefined
  /** A red everyday run's attribution (docs/attribution.md): a column of the step summary, the annotations' words. */
  attribution?: AttributionFile | undefined
}
