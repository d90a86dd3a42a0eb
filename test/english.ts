/**
 * The English left in text meant to be Korean: Latin words of two letters or more, once what is
 * not prose is taken out: the user's own text (test ids, commands, errors: pass them in), file
 * names, flags, the artifacts' field names, and the names Korean writes in Latin letters too
 * (people, tools, units). A word found is a string someone forgot to translate.
 */
export function englishLeft(text: string, userText: readonly string[]): string[] {
  let prose = text
  // Longest first, so an id is removed whole before a shorter one that is part of it.
  for (const user of [...userText].sort((a, b) => b.length - a.length)) if (user !== '') prose = prose.replaceAll(user, ' ')
  prose = prose
    .replace(/[\w./-]+\.(?:jsonl|json|md|html|ts|js)\b/g, ' ')
    .replace(/--[\w-]+/g, ' ')
    .replace(/\bci_(?:high|low)\b/g, ' ')
  return (prose.match(/[A-Za-z]{2,}/g) ?? []).filter((word) => !NAMES.has(word))
}

/** Inline and fenced code of a markdown text removed: commands and ids stay as typed in any language. */
export function withoutMarkdownCode(markdown: string): string {
  return markdown.replace(/```[\s\S]*?```/g, ' ').replace(/`[^`\n]*`/g, ' ')
}

// --- internal ---

const NAMES = new Set(['flakeproof', 'Vitest', 'Jest', 'JSON', 'Wilson', 'Fisher', 'Liblit', 'et', 'al', 'Wald', 'Wolfowitz', 'ms'])
