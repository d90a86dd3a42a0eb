/**
 * Node reads the certificate bundle that NODE_EXTRA_CA_CERTS names at every start, before any
 * script: ~45 ms of CPU on a machine that sets it (this one does), ~7% of a small Vitest run's. The
 * suite starts ~1 700 Node processes (the CLI, Vitest, Jest and Playwright, their workers), and none
 * of them opens a TLS connection but npm's installs. So vitest.config.ts sets the variable aside
 * before any test file's process starts, and the installs get it back (`networkEnv`).
 */
const ASIDE = 'FLAKEPROOF_TEST_EXTRA_CA_CERTS'

/** Moves NODE_EXTRA_CA_CERTS to a name Node does not read; the processes started later inherit that. */
export function setExtraCaCertsAside(env: NodeJS.ProcessEnv = process.env): void {
  const certs = env.NODE_EXTRA_CA_CERTS
  if (certs === undefined) return
  env[ASIDE] = certs
  delete env.NODE_EXTRA_CA_CERTS
}

/** The environment of a process that goes to the registry: NODE_EXTRA_CA_CERTS as the machine set it. */
export function networkEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const certs = env[ASIDE]
  return certs === undefined ? env : { ...env, NODE_EXTRA_CA_CERTS: certs }
}
