/** Shell builtins and keywords (dash and bash): these only mean what the user meant inside a shell. */
const SHELL_WORDS = new Set(
  ('! . : [ [[ alias bg break builtin case cd command continue declare do done echo elif else eval exec exit export ' +
    'false fc fg for function getopts hash history if jobs kill let local logout popd printf pushd pwd read readonly ' +
    'return select set shift source test then time times trap true type typeset ulimit umask unalias unset until wait while')
    .split(' '),
)

/** Characters that can never be expanded, quoted or redirected by a POSIX shell. */
const PLAIN_WORD = /^[\w./:,+@%=-]+$/

/**
 * The argv of a command made only of plain words (`node job.js --state /tmp/x`), which a shell would
 * run unchanged; undefined when the shell could change anything (quotes, $, globs, ~, redirections,
 * pipes, `VAR=x` prefixes, builtins). Starting such a command directly saves a shell per trial.
 */
export function plainArgv(command: string): string[] | undefined {
  const words = command.trim().split(/[ \t]+/)
  const [program] = words
  if (program === undefined || program === '' || program.includes('=') || SHELL_WORDS.has(program)) return undefined
  return words.every((w) => PLAIN_WORD.test(w)) ? words : undefined
}
