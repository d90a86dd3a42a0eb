/** The suite's seeded PRNG is the product's own (mulberry32, src/core/seeded-random.ts): one generator, so every generated case replays exactly. */
export { seededRandom as seeded } from '../src/core/seeded-random.js'
