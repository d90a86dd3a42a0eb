// The project's own setup file: `flakeproof jest` keeps it beside its own.
globalThis.exampleSetupRan = true
