// The project's own setup file: `flakeproof jest` keeps it.
globalThis.exampleSetupRan = true
