/**
 * What a schema's `$ref`s do to it, checked on the nodes schema-limits.ts collected, without
 * recursion: that each points at a schema in the document, that none leads into a cycle with no
 * way out (`{"$defs":{"a":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}`: no finite value matches it,
 * and xgrammar compiles it into a grammar that allows no first token), and how deep the schema
 * nests once references are followed, as xgrammar follows them: each named schema is converted
 * where it is first reached, so a chain of references nests as deep as its length.
 * @module
 */
import { DEFINITIONS } from './schema-keywords.ts';
import { isRecord, levelsOf, pathOf, type Refuse, type SchemaNode } from './schema-nodes.ts';

interface Edge {
  readonly to: number;
  /** Levels it adds. */
  readonly weight: number;
  readonly viaRef: boolean;
}

/** `depth`: the most levels the schema may nest, references followed. */
export function checkReferences(nodes: readonly SchemaNode[], depth: number, refuse: Refuse): void {
  // Where each reference leads: a node, or a boolean schema (true: anything; false: nothing).
  const targets = new Map<number, number | boolean>();
  const byObject = new Map<object, number>();
  nodes.forEach((node, i) => isRecord(node.value) && !byObject.has(node.value) && byObject.set(node.value, i));
  nodes.forEach((node, i) => {
    const ref = isRecord(node.value) ? node.value.$ref : undefined;
    // Other references are refused by json-schema-support.ts.
    if (typeof ref !== 'string' || !(ref === '#' || ref.startsWith('#/'))) return;
    const target = resolve(nodes[0]!.value, ref, byObject);
    if (target === undefined) throw refuse(`${pathOf(nodes, i)}/$ref`, `the reference ${JSON.stringify(ref)} points at no schema in this document`);
    targets.set(i, target);
  });
  if (targets.size === 0) return;
  checkWayOut(nodes, targets, refuse);
  checkDepth(nodes, targets, depth, refuse);
}

/** The schema `ref` (`#`, `#/$defs/a`) points at in `root`, if it points at one. */
function resolve(root: unknown, ref: string, byObject: ReadonlyMap<object, number>): number | boolean | undefined {
  let at: unknown = root;
  for (const raw of ref === '#' ? [] : ref.slice(2).split('/')) {
    let segment = raw;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      // Not percent-encoded after all: taken as written.
    }
    segment = segment.replaceAll('~1', '/').replaceAll('~0', '~');
    if (typeof at !== 'object' || at === null || !Object.hasOwn(at, segment)) return undefined;
    at = (at as Record<string, unknown>)[segment];
  }
  if (typeof at === 'boolean') return at;
  return isRecord(at) ? byObject.get(at) : undefined;
}

/**
 * Which schemas some finite value matches, as an and/or graph solved by propagation from what
 * matches outright: a schema needs what its `$ref` points at, one `anyOf` branch, and for one of
 * its types (an object: each required property; an array: each item `minItems` asks for) what
 * that needs. A reference to a schema no finite value matches is refused.
 */
function checkWayOut(nodes: readonly SchemaNode[], targets: ReadonlyMap<number, number | boolean>, refuse: Refuse): void {
  // Gates 0..n-1 are the nodes themselves (each an `and`); more are added for their parts.
  const kinds: ('and' | 'or')[] = nodes.map(() => 'and');
  const needs: number[][] = nodes.map(() => []);
  const gate = (kind: 'and' | 'or', deps: number[]) => {
    kinds.push(kind);
    needs.push(deps);
    return kinds.length - 1;
  };
  const NEVER = gate('or', []);
  nodes.forEach((node, i) => {
    const value = node.value;
    if (value === false) needs[i]!.push(NEVER);
    if (!isRecord(value)) return;
    const childrenAt = (keyword: string) => node.children.filter((c) => nodes[c]!.keyword === keyword);
    const target = targets.get(i);
    if (target === false) needs[i]!.push(NEVER);
    else if (typeof target === 'number') needs[i]!.push(target);
    if (Array.isArray(value.anyOf)) needs[i]!.push(gate('or', childrenAt('anyOf')));
    const types = Array.isArray(value.type) ? value.type : typeof value.type === 'string' ? [value.type] : inferredTypes(value);
    if (types.length === 0 || types.some((type) => type !== 'object' && type !== 'array')) return;
    const byType = types.map((type) => {
      if (type === 'object') {
        const required = new Set(Array.isArray(value.required) ? value.required : []);
        return gate('and', childrenAt('properties').filter((c) => required.has(nodes[c]!.name)));
      }
      const minItems = typeof value.minItems === 'number' ? value.minItems : 0;
      const prefix = childrenAt('prefixItems');
      const deps = prefix.filter((c) => Number(nodes[c]!.name) < minItems);
      if (minItems > prefix.length) deps.push(...childrenAt('items'));
      return gate('and', deps);
    });
    needs[i]!.push(gate('or', byType));
  });

  const waiting = needs.map((deps, g) => (kinds[g] === 'and' ? deps.length : deps.length > 0 ? 1 : Infinity));
  const dependents: number[][] = needs.map(() => []);
  needs.forEach((deps, g) => deps.forEach((d) => dependents[d]!.push(g)));
  const matches = new Uint8Array(needs.length);
  const ready = waiting.flatMap((count, g) => (count === 0 ? [g] : []));
  while (ready.length > 0) {
    const g = ready.pop()!;
    if (matches[g]) continue;
    matches[g] = 1;
    for (const d of dependents[g]!) if (--waiting[d]! === 0) ready.push(d);
  }
  for (const [i, target] of [...targets].sort(([a], [b]) => a - b)) {
    if (target === false || (typeof target === 'number' && !matches[target])) {
      throw refuse(`${pathOf(nodes, i)}/$ref`, `this reference leads into a cycle of references with no way out (or to a schema nothing matches): no finite JSON value matches it`);
    }
  }
}

/** The types a schema without `type` is taken to have, from its keywords. */
function inferredTypes(schema: Record<string, unknown>): string[] {
  if ('properties' in schema || 'required' in schema) return ['object'];
  if ('items' in schema || 'prefixItems' in schema || 'minItems' in schema) return ['array'];
  return [];
}

/**
 * The deepest level reachable from the root, references followed. Schemas on a cycle of
 * references (a strongly connected component) are each reached once on any path that does not
 * repeat itself, so a cycle counts all its levels once: an upper bound, and the exact depth where
 * references form no cycle.
 */
function checkDepth(nodes: readonly SchemaNode[], targets: ReadonlyMap<number, number | boolean>, depth: number, refuse: Refuse): void {
  const edges: Edge[][] = nodes.map((node) =>
    // Named schemas are reached through references, as xgrammar reaches them.
    node.children.filter((c) => !DEFINITIONS.has(nodes[c]!.keyword)).map((c) => ({ to: c, weight: nodes[c]!.level - node.level, viaRef: false })),
  );
  for (const [i, target] of targets) if (typeof target === 'number') edges[i]!.push({ to: target, weight: levelsOf(nodes[target]!.value), viaRef: true });

  const { sccOf, sccs } = components(edges);
  // Levels below each component's entry, at most; components come dependents-last.
  const below = new Float64Array(sccs.length);
  const cyclic = sccs.map((members) => members.length > 1 || edges[members[0]!]!.some((e) => e.to === members[0]));
  sccs.forEach((members, s) => {
    let inside = 0;
    let exit = 0;
    for (const n of members) {
      let step = 0;
      exit = Math.max(exit, nodes[n]!.deepest - nodes[n]!.level);
      for (const e of edges[n]!) {
        if (sccOf[e.to] === s) step = Math.max(step, e.weight);
        else exit = Math.max(exit, e.weight + below[sccOf[e.to]!]!);
      }
      inside += step;
    }
    below[s] = (cyclic[s] ? inside : 0) + exit;
  });

  let level = nodes[0]!.level;
  if (level + below[sccOf[0]!]! <= depth) return;
  // Follows the deepest way down to where it passes the limit, or to the cycle that does.
  const reason = (reached: number) => `following references, schemas nest to level ${reached} here, over the limit of ${depth} levels`;
  for (let n = 0; ; ) {
    const s = sccOf[n]!;
    if (cyclic[s]) {
      const onCycle = sccs[s]!.filter((m) => edges[m]!.some((e) => e.viaRef && sccOf[e.to] === s)).sort((a, b) => a - b)[0] ?? n;
      throw refuse(`${pathOf(nodes, onCycle)}/$ref`, `${reason(level + below[s]!)} (the references here form a cycle)`);
    }
    const next = edges[n]!.reduce<Edge | undefined>((best, e) => (best === undefined || e.weight + below[sccOf[e.to]!]! > best.weight + below[sccOf[best.to]!]! ? e : best), undefined);
    if (!next || nodes[n]!.deepest - nodes[n]!.level > next.weight + below[sccOf[next.to]!]!) throw refuse(pathOf(nodes, n), reason(nodes[n]!.deepest - nodes[n]!.level + level));
    level += next.weight;
    if (level > depth) throw refuse(next.viaRef ? `${pathOf(nodes, n)}/$ref` : pathOf(nodes, next.to), reason(level));
    n = next.to;
  }
}

/** Strongly connected components of the graph reachable from node 0 (Tarjan's, with a stack of its own), each after those it leads to. */
function components(edges: readonly (readonly Edge[])[]): { sccOf: Int32Array; sccs: number[][] } {
  const order = new Int32Array(edges.length).fill(-1);
  const low = new Int32Array(edges.length);
  const onStack = new Uint8Array(edges.length);
  const sccOf = new Int32Array(edges.length).fill(-1);
  const sccs: number[][] = [];
  const stack: number[] = [];
  const calls: { node: number; next: number }[] = [];
  let counter = 0;
  const enter = (node: number) => {
    order[node] = low[node] = counter++;
    stack.push(node);
    onStack[node] = 1;
    calls.push({ node, next: 0 });
  };
  enter(0);
  while (calls.length > 0) {
    const call = calls[calls.length - 1]!;
    const out = edges[call.node]!;
    if (call.next < out.length) {
      const to = out[call.next++]!.to;
      if (order[to] === -1) enter(to);
      else if (onStack[to]) low[call.node] = Math.min(low[call.node]!, order[to]!);
      continue;
    }
    calls.pop();
    const caller = calls[calls.length - 1];
    if (caller) low[caller.node] = Math.min(low[caller.node]!, low[call.node]!);
    if (low[call.node] === order[call.node]) {
      const members: number[] = [];
      let member: number;
      do {
        member = stack.pop()!;
        onStack[member] = 0;
        sccOf[member] = sccs.length;
        members.push(member);
      } while (member !== call.node);
      sccs.push(members);
    }
  }
  return { sccOf, sccs };
}
