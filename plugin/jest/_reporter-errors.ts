/** Jest's BaseReporter (`@jest/reporters`, 29 and 30): the coverage reporter and most others extend it. */
export interface JestBaseReporter {
  prototype: { getLastError(): unknown }
}

/**
 * Whether one of Jest's reporters failed the run: the coverage reporter's unmet threshold, or a
 * reporter built on BaseReporter that could not report. Jest folds that into the same `success` as
 * failed tests, and only failed tests may be advisory in a measurement. Read where Jest reads it:
 * each reporter's getLastError, which Jest asks once every reporter has finished the run
 * (ReporterDispatcher.hasErrors). Until `stop`, which puts Jest's method back.
 */
export function watchReporterErrors(base: JestBaseReporter | undefined): { readonly failed: boolean; stop(): void } {
  let failed = false
  if (!base) return { failed, stop: () => {} }
  const proto = base.prototype
  const before = Object.getOwnPropertyDescriptor(proto, 'getLastError')
  const getLastError = proto.getLastError
  proto.getLastError = function (this: unknown) {
    const error: unknown = getLastError.call(this)
    if (error) failed = true
    return error
  }
  return {
    get failed() {
      return failed
    },
    stop() {
      if (before) Object.defineProperty(proto, 'getLastError', before)
      else delete (proto as { getLastError?: unknown }).getLastError
    },
  }
}
