import { describe, expect, it } from 'vitest'
import { networkEnv, setExtraCaCertsAside } from '../extra-ca-certs.js'

// The suite's own processes start without the bundle Node reads at each start (test/extra-ca-certs.ts);
// npm's installs get it back, and a machine that sets none is left as it is.
describe('NODE_EXTRA_CA_CERTS, set aside for the suite and given back to npm', () => {
  it.each([
    { machine: { NODE_EXTRA_CA_CERTS: '/certs.pem', PATH: '/bin' }, suite: { FLAKEPROOF_TEST_EXTRA_CA_CERTS: '/certs.pem', PATH: '/bin' } },
    { machine: { PATH: '/bin' }, suite: { PATH: '/bin' } },
  ])('$machine', ({ machine, suite }) => {
    const env: NodeJS.ProcessEnv = { ...machine }
    setExtraCaCertsAside(env)
    expect(env).toEqual(suite)
    expect(networkEnv(env)).toEqual({ ...suite, ...machine })
    // Set aside twice (a config loaded again) still gives the machine's value back.
    setExtraCaCertsAside(env)
    expect(networkEnv(env).NODE_EXTRA_CA_CERTS).toBe(machine.NODE_EXTRA_CA_CERTS)
  })
})
