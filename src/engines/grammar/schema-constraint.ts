/**
 * JSON output and tool calls by the schema matcher and the token masks (no grammar compiled
 * against the vocabulary): a schema is read in well under a millisecond and its masks are made as
 * decoding reaches each state, so a new schema's or tool set's first token is not held up.
 * Matchers are kept per schema or tool set (many, bounded), and the masks of the states they have
 * been through with them, so one sent again starts from masks already made.
 * @module
 */
import { GatewayError } from '../../core/errors.ts';
import { checkSchemaLimits, STACK_LIMITS } from '../../core/schema-limits.ts';
import { NO_VALUE } from '../../core/json-schema-support.ts';
import { OBJECT, readSchema, typedNode, UnenforceableSchema, type Node } from '../../core/json-schema/schema-node.ts';
import { jsonMatcher } from './schema-matcher/json-matcher.ts';
import { thinkingFirst } from './schema-matcher/thinking-first.ts';
import { toolCallsMatcher } from './schema-matcher/tool-calls-matcher.ts';
import { createGrammarCache } from './grammar-cache.ts';
import type { ByteMatcher } from './byte-matcher.ts';
import type { GrammarSpec } from './ebnf.ts';
import { createTokenMasks, type TokenMasks } from './token-masks/token-masks.ts';
import type { TokenConstraint, Vocabulary } from './vocabulary.ts';

/** Matchers kept per vocabulary: a matcher is small (its nodes), its masks live in the masks' own bounded store. */
export const MATCHERS_KEPT = 256;

export interface SchemaConstraints {
  /**
   * A constraint for `spec`, or undefined where this engine does not take it (a schema it cannot
   * enforce): the grammar engine does.
   */
  start(spec: GrammarSpec): TokenConstraint | undefined;
}

export function createSchemaConstraints(vocabulary: Vocabulary): SchemaConstraints {
  let masks: TokenMasks | undefined;
  const matchers = createGrammarCache<ByteMatcher | null>(MATCHERS_KEPT, Infinity);
  return {
    start(spec) {
      const key = spec.kind === 'json' ? JSON.stringify(spec.asked ?? spec.output) : JSON.stringify(spec);
      let matcher = matchers.get(key);
      if (matcher === undefined) {
        matcher = matcherOf(spec);
        matchers.set(key, matcher, key.length);
      }
      if (matcher === null) return undefined;
      // The trie and tables are built on the first schema, not with the model.
      masks ??= createTokenMasks(vocabulary);
      return masks.constraint(matcher);
    },
  };
}

/**
 * The matcher for a JSON answer or tool calls, after a thinking block where the model thinks, or
 * null where a schema is one this engine refuses.
 */
function matcherOf(spec: GrammarSpec): ByteMatcher | null {
  const answer = spec.kind === 'tools' ? toolsMatcherOf(spec) : jsonMatcherOf(spec);
  if (!answer || !spec.thinking) return answer;
  try {
    return thinkingFirst(answer, spec.thinking);
  } catch {
    // A marker the matcher cannot follow: the grammar engine answers for it, as it did.
    return null;
  }
}

function jsonMatcherOf(spec: Extract<GrammarSpec, { kind: 'json' }>): ByteMatcher | null {
  const output = spec.asked ?? spec.output;
  let node: Node;
  if (output.kind === 'json_schema') {
    // The gateway checked it already; an engine asked directly (createWorkerEngine, the Node
    // engine) holds it to the limits that keep reading it (recursively) safe.
    const param = 'response_format';
    checkSchemaLimits(output.schema, (at, reason) => new GatewayError('invalid_request', `Invalid schema for ${param} at ${at}: ${reason}.`, { param }), STACK_LIMITS);
  }
  try {
    node = output.kind === 'json_object' ? typedNode(OBJECT) : readSchema(output.schema);
  } catch (error) {
    if (error instanceof UnenforceableSchema) return null;
    throw error;
  }
  if (node.kind === 'never') throw new GatewayError('invalid_request', `Invalid schema for response_format at #: ${NO_VALUE}.`, { param: 'response_format' });
  return jsonMatcher(node);
}

/** Tool calls (or, as the choice allows, a reply) by the tools' schemas, their objects closed (ReadOptions). */
function toolsMatcherOf(spec: Extract<GrammarSpec, { kind: 'tools' }>): ByteMatcher | null {
  const read = (schema: Record<string, unknown>, param: string, closedObjects: boolean): Node | null => {
    checkSchemaLimits(schema, (at, reason) => new GatewayError('invalid_request', `Invalid schema for ${param} at ${at}: ${reason}.`, { param }), STACK_LIMITS);
    try {
      const node = readSchema(schema, { closedObjects });
      return node.kind === 'never' ? null : node;
    } catch (error) {
      if (error instanceof UnenforceableSchema) return null;
      throw error;
    }
  };
  const tools: { name: string; parameters: Node }[] = [];
  for (const tool of spec.tools) {
    const parameters = read(tool.parameters, 'tools', true);
    if (!parameters) return null;
    tools.push({ name: tool.name, parameters });
  }
  let reply: Node | undefined;
  if (spec.output) {
    const node = spec.output.kind === 'json_object' ? typedNode(OBJECT) : read(spec.output.schema, 'response_format', false);
    if (!node) return null;
    reply = node;
  }
  return toolCallsMatcher({ tools, mode: spec.mode, parallel: spec.parallel, ...(reply ? { reply } : {}) });
}
