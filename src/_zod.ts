/**
 * The part of zod that flakeproof's code reaches, and its only import of zod: every other module
 * imports `* as z` from here. Named members, not `export *`, so the build (scripts/bundle-zod.mjs)
 * can put exactly these, and what they reach, in one file: loading zod whole (95 modules, ~800 kB:
 * its 50 locales, its JSON Schema reader) cost a CLI command about 40% of its start-up above Node's
 * own (docs/benchmarks.md, "Where the time goes"). A member missing here is a type error where used.
 */
export { array, boolean, compile, enum, iso, literal, NEVER, number, object, record, string, toJSONSchema, union } from 'zod'
export type { infer, input, output, RefinementCtx, ZodError, ZodOptional, ZodType } from 'zod'
