/**
 * Files a command that writes a whole new result (`merge`, `history`) clears from its folder first:
 * those of an earlier run there would not belong to the new numbers.
 */
export const RESULT_FILES = ['rate.json', 'runs_needed.json', 'only_when_fail.json', 'policy.json', 'observer.json', 'proof.json', 'proof_facts.jsonl', 'facts.jsonl', 'conditions.json']
