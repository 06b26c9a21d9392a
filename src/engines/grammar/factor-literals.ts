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
      const literals = [...match[2]!.matchAll(ALTERNATIVE)].map((m) => m[1]!.match(UNIT) ?? []);
      return `${match[1]} ::= ${trie(literals)}`;
    })
    .join('\n');
}

/** The alternatives as a trie: at each position, one branch per distinct next character. */
function trie(words: readonly (readonly string[])[]): string {
  const branches = new Map<string, (readonly string[])[]>();
  let ends = false;
  for (const word of words) {
    if (word.length === 0) {
      ends = true;
      continue;
    }
    const rest = branches.get(word[0]!) ?? [];
    rest.push(word.slice(1));
    branches.set(word[0]!, rest);
  }
  const alternatives = [...branches].map(([unit, rest]) => {
    const tail = trie(rest);
    return tail === '""' ? `"${unit}"` : `"${unit}" ${tail}`;
  });
  if (ends) alternatives.push('""');
  if (alternatives.length === 0) return '""';
  return alternatives.length === 1 ? alternatives[0]! : `(${alternatives.join(' | ')})`;
}
