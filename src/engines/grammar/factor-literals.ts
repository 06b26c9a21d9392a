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
      return literalTrieRules(match[1]!, literals).join('\n');
    })
    .join('\n');
}

/**
 * Groups nested deeper than this in one rule go into rules of their own: xgrammar parses a group
 * by recursion on its 64 KiB wasm stack (some 400 bytes a level), so an enum whose values branch
 * at every character (`b`, `ab`, `aab`, ...) would otherwise overrun it at about 150 values.
 */
const MAX_GROUP_NESTING = 16;

interface TrieNode {
  readonly next: Map<string, TrieNode>;
  /** Continuations of the words that end here (`""` for none), in order, once each. */
  readonly ends: Set<string>;
}

/**
 * Literals (as units of an EBNF string literal, escapes kept) each followed by its own
 * continuation (`""` for none), as a trie: at each position one branch per distinct next unit.
 * Returned as the rule `name` and the rules it uses (`name_trie1`, ...), with no group nested
 * more than MAX_GROUP_NESTING deep. Built with loops: a literal of any length costs no JS stack.
 */
export function literalTrieRules(name: string, words: readonly (readonly [readonly string[], string])[]): string[] {
  const root: TrieNode = { next: new Map(), ends: new Set() };
  for (const [units, tail] of words) {
    let node = root;
    for (const unit of units) {
      let child = node.next.get(unit);
      if (!child) node.next.set(unit, (child = { next: new Map(), ends: new Set() }));
      node = child;
    }
    node.ends.add(tail);
  }
  const rules: string[] = [];
  const pending: [string, TrieNode][] = [[name, root]];
  // Recursion only at a group, and groups nest at most MAX_GROUP_NESTING deep.
  const expression = (node: TrieNode, depth: number): string => {
    const grouped = node.next.size + node.ends.size > 1;
    if (grouped && depth >= MAX_GROUP_NESTING) {
      const rule = `${name}_trie${pending.length}`;
      pending.push([rule, node]);
      return rule;
    }
    const alternatives: string[] = [];
    for (const [unit, child] of node.next) {
      // A run of units with no branch is one sequence of literals.
      const units = [unit];
      let at = child;
      while (at.next.size === 1 && at.ends.size === 0) {
        const [following, after] = at.next.entries().next().value!;
        units.push(following);
        at = after;
      }
      const rest = expression(at, grouped ? depth + 1 : depth);
      const literals = units.map((u) => `"${u}"`).join(' ');
      alternatives.push(rest === '""' ? literals : `${literals} ${rest}`);
    }
    alternatives.push(...node.ends);
    if (alternatives.length === 0) return '""';
    return alternatives.length === 1 ? alternatives[0]! : `(${alternatives.join(' | ')})`;
  };
  for (let i = 0; i < pending.length; i++) {
    const [rule, node] = pending[i]!;
    rules.push(`${rule} ::= ${expression(node, 0)}`);
  }
  return rules;
}
