import * as z from '../../_zod.js'
import { ARTIFACT_SCHEMAS, type ArtifactName } from '../../artifacts/artifact-schemas.js'
import { oneOf } from '../../config/flags.js'
import { defineCommand } from '../spec.js'

const names = Object.keys(ARTIFACT_SCHEMAS) as [ArtifactName, ...ArtifactName[]]

export const schema = defineCommand({
  name: 'schema',
  summary: 'print the JSON Schema of an artifact',
  usage: `<${names.join('|')}>`,
  flags: [],
  writes: 'nothing; prints the JSON Schema (draft 2020-12) on stdout',
  example: 'npx flakeproof schema rate',
  schema: z.object({ name: oneOf('schema <name>', names) }),
  async run(o, { print }) {
    print({ title: ARTIFACT_SCHEMAS[o.name].file, ...z.toJSONSchema(ARTIFACT_SCHEMAS[o.name].schema) })
    return 0
  },
})
