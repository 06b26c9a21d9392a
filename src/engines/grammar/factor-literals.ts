/**
 * Works around a matcher bug in xgrammar 0.1.27 (the build on npm, and the one inside web-llm):
 * a rule that is an alternation of string literals sharing leading characters, which is how a
 * JSON schema `enum` or `const` compiles (`root_prop_0 ::= ("\"a\"") | ("\"r\"") | ("\"ra\"")`),
 * accepts strings outside the list (`"aaaaa"` there; `6916` for the integers -10..1010). The same
 * list written as a trie, where no two alternatives start with the same character, is matched
 * exactly (checked in factor-literals.test.ts against xgrammar itself). So every such rule in the
 * EBNF the JSON schema converter writes is rewritten as its trie before compiling.
 * @module
 */

/** One alternative: `("...")`, the literal's escapes left as they are. */
const LITERAL = String.raw`\("((?:[^"\\]|\\.)*)"\)`;
const RULE = new RegExp(String.raw`^(\S+) ::= (${LITERAL}(?: \| ${LITERAL})+)$`);
const ALTERNATIVE = new RegExp(LITERAL, 'g');
/** One character of a literal: an escape sequence counts as one. */
const UNIT = /\\u[0-9a-fA-F]{4}|\\U[0-9a-fA-F]{8}|\\x[0-9a-fA-F]{2}|\\.|[^\\]/gu;

export function factorLiteralAlternatives(ebnf: string): string {
  return ebnf
    .split('\n')
    .map((line) => {
      const match = RULE.exec(line);
      if (!match) return line;
      const literals = [...match[2]!.matchAll(ALTERNATIVE)].map((m) => [m[1]!.match(UNIT) ?? [], '""'] as const);
      return `${match[1]} ::= ${literalTrie(literals)}`;
    })
    .join('\n');
}

/**
 * Literals (as units of an EBNF string literal, escapes kept) each followed by its own
 * continuation (`""` for none), as a trie: at each position one branch per distinct next unit.
 */
export function literalTrie(words: readonly (readonly [readonly string[], string])[]): string {
  const branches = new Map<string, (readonly [readonly string[], string])[]>();
  const ends = new Set<string>();
  for (const [units, tail] of words) {
    if (units.length === 0) {
      ends.add(tail);
      continue;
    }
    const rest = branches.get(units[0]!) ?? [];
    rest.push([units.slice(1), tail]);
    branches.set(units[0]!, rest);
  }
  const alternatives = [...branches].map(([unit, rest]) => {
    const next = literalTrie(rest);
    return next === '""' ? `"${unit}"` : `"${unit}" ${next}`;
  });
  alternatives.push(...ends);
  if (alternatives.length === 0) return '""';
  return alternatives.length === 1 ? alternatives[0]! : `(${alternatives.join(' | ')})`;
}
