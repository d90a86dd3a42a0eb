/**
 * The part of zod that flakeproof's code reaches, and its only import of zod: every other module
 * imports `* as z` from here. Named members, not `export *`, so the build (scripts/bundle-zod.mjs)
 * can put exactly these, and what they reach, in one file: loading zod whole (95 modules, ~800 kB:
 * its 50 locales, its JSON Schema reader) cost a CLI command about 40% of its start-up above Node's
 * own (docs/benchmarks.md, "Where the time goes"). A member missing here is a type error where used.
 */
export { array, boolean, compile, enum, iso, literal, NEVER, number, object, record, string, toJSONSchema, union } from 'zod'
export type { infer, input, output, RefinementCtx, ZodError, ZodOptional, ZodSafeParseResult, ZodType } from 'zod'

/**
 * The parse options for a small value a process parses once (options, a command's flags, an artifact
 * of a few tests). zod's first parse of each object schema otherwise generates and compiles its
 * fast path (`new Function`), which only many parses of that schema repay (docs/benchmarks.md,
 * "Artifacts parsed once"). The same result and issues, only the path differs
 * (test/unit/one-parse.test.ts). Not for lines of a file, nor a large artifact: there the fast path,
 * or the compiled schema, pays (artifacts/_compiled-schema.ts).
 */
export const ONE_PARSE = { jitless: true } as const
