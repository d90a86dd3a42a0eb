// Types of bench/benches.mjs for the smoke test (test/e2e/bench-smoke.test.ts).
export declare const BENCHES: readonly { script: string; ratios: readonly string[]; optional?: readonly string[] }[]
export declare const RATIO_LINE: RegExp
export declare const HELPERS: readonly string[]
export declare const CALIBRATIONS: readonly string[]
export declare function closingLines(ratioLines: readonly string[]): string[]
