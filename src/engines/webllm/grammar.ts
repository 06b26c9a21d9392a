/**
 * The grammar a web-llm request's output must follow: the EBNF the transformers.js engine
 * enforces (engines/grammar/ebnf.ts), handed to web-llm as a `grammar` response format, which it
 * compiles with the xgrammar it bundles and matches token by token.
 *
 * web-llm's own `json_object` mode is not used: it compiles schemas with xgrammar's defaults,
 * without the fixes ebnf.ts makes (docs/decisions/constrained-decoding.md). Its `tools` field is
 * not used either: it accepts only Hermes models and writes its own prompt.
 * @module
 */
import type { ReasoningFormat } from '../../core/reasoning.ts';
import type { ChatRequest } from '../../core/engine.ts';
import { GatewayError } from '../../core/errors.ts';
import { grammarSpecOf, toEbnf } from '../grammar/ebnf.ts';
import { createGrammarCache } from '../grammar/grammar-cache.ts';
import type { LoadXGrammar } from '../grammar/xgrammar.ts';

/** The EBNF for a request (root rule `root`, web-llm's default), or undefined for free text. */
/** `reasoning`: the model thinks first (its ModelInfo's), and the grammar applies after its thinking. */
export type GrammarFor = (request: ChatRequest, reasoning?: ReasoningFormat) => Promise<string | undefined>;

/** Grammars kept: at most this many, and this much text (web-llm keeps its compiled ones apart). */
const CACHE_ENTRIES = 32;
const CACHE_BYTES = 1024 * 1024;

/**
 * Every request that has `output` or `tools` gets a grammar, `tool_choice: 'none'` included: its
 * prompt still lists the tools and shows the call format (as on the transformers.js path), so
 * without the grammar's text-only reply the model could start a `<tool_call>` that nothing would
 * parse. Without `output`, that grammar is the same EBNF every time, so web-llm keeps its matcher.
 */
export function createGrammarFor(loadGrammar: LoadXGrammar | undefined): GrammarFor {
  // Converting the schemas costs milliseconds; a client repeats its tools and schemas.
  const cache = createGrammarCache<Promise<string>>(CACHE_ENTRIES, CACHE_BYTES);
  return async (request, reasoning) => {
    const spec = grammarSpecOf(request, reasoning);
    if (!spec) return undefined;
    const param = spec.kind === 'tools' ? 'tools' : 'response_format';
    if (!loadGrammar) throw new GatewayError('invalid_request', `This engine cannot constrain output: ${param} is not supported here.`, { param });
    const key = JSON.stringify(spec);
    const hit = cache.get(key);
    if (hit) return hit;
    const ebnf = loadGrammar().then(async (xgrammar) => {
      const { ebnf: text, root } = await toEbnf(xgrammar, spec);
      // web-llm compiles a `grammar` response format from the rule named `root`; there is no field for another.
      if (root !== 'root') throw new Error(`web-llm needs the grammar's root rule to be named "root", not "${root}".`);
      cache.weigh(key, ebnf, key.length + text.length);
      return text;
    });
    ebnf.catch(() => cache.delete(key));
    cache.set(key, ebnf, key.length);
    return ebnf;
  };
}
