/**
 * Fails when a source file imports upward: a folder of src/ may import only folders on a lower
 * layer (and itself), a room of src/engines only rooms on a lower layer; or when imports go round
 * in a circle. Run by `npm run typecheck`; `node scripts/check-imports.ts [root]` checks another
 * tree (the unit test plants violations in a temporary one).
 *
 * The layers, read from what each folder imports (lowest first). Folders on one layer do not
 * import each other: remote/ reaches a server through the wire formats of protocol/ (their client
 * side), so it sits above them; engines/ and remote/ stay apart, each behind the neutral model.
 *
 *   0  core         the neutral model: requests, events, errors, SSE, the wire-format seam (runs anywhere)
 *      tiny-models  the generated models' builders (no imports of the product)
 *   1  protocol     the wire formats: each parses into and renders from core/, and says how it is
 *                   spoken to a server (its client side)
 *      contracts    the messages between execution contexts (page, service worker, worker)
 *   2  remote       remote models: upstream pools, health, a neutral request sent in a server's format
 *      engines      the engines (web-llm, transformers.js, the built-in model) and their files
 *      storage      the browser's response store
 *   3  gateway      the Request -> Response app: routing, auth, the chat path, the endpoints of protocol/
 *      rpc          the links between contexts, carrying the engine host of engines/
 *   4  worker       the engine worker's entry
 *      sw           the service worker's entry
 *      client       the page's library
 *      msw          msw handlers over the gateway
 *   5  install      the runtime files an app serves (the service worker's among them)
 *      node         the Node server
 *      playground   the demo page
 *   6  vite         the Vite plugin (writes the runtime files)
 *      cli          `npx inpage-llm`
 *
 * Product code never imports test/, e2e/, bench/ or scripts/. Test files (`*.test.ts`) are left
 * out of the order: a test may assemble the layers above its subject (an adapter driven through
 * the RPC link, an endpoint through the gateway). A folder that is not listed fails the check
 * until it is given a layer here.
 *
 * Inside src/engines the same rules hold among its rooms (ENGINE_ROOMS, read the same way):
 *
 *   0  decoding      the prefix store and logit bias, engine-neutral aids to decoding (core/ only)
 *      device        the WebGPU probe and the device-loss watch (nothing of the product)
 *      files         model files: fetch, resume, check, cache, room in storage (core/, contracts/)
 *      grammar       xgrammar and the grammars built for it (core/ only)
 *   1  catalog       the models offered and each engine's spec of them: data, which names the
 *                    checks of its files (files/) and imports no adapter and no host
 *      hosting       the adapter interface and the model host, which runs any adapter and so
 *                    knows none of them, nor the catalog
 *   2  transformers  the adapters: each implements hosting/'s interface for catalog/'s specs, over
 *      webllm        files/, device/, decoding/ and grammar/; no adapter imports another
 *      builtin
 *
 * src/engines holds no file of its own but index.ts, the list of the modules other folders may
 * import (they import those, never the list: see the file), which sits above every room. A room
 * with an index.ts is entered through it by the other rooms (files/ is the one they use).
 *
 * And no import circle anywhere in src/, type-only imports included: a circle closed only by types
 * still ties its files together, none of them readable or movable without the rest.
 * @module
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

export const LAYERS: readonly (readonly string[])[] = [
  ['core', 'tiny-models'],
  ['protocol', 'contracts'],
  ['remote', 'engines', 'storage'],
  ['gateway', 'rpc'],
  ['worker', 'sw', 'client', 'msw'],
  ['install', 'node', 'playground'],
  ['vite', 'cli'],
];

/** The rooms of src/engines, lowest first (see above). */
export const ENGINE_ROOMS: readonly (readonly string[])[] = [
  ['decoding', 'device', 'files', 'grammar'],
  ['catalog', 'hosting'],
  ['transformers', 'webllm', 'builtin'],
];

/** Folders beside src/ that product code must not import. */
const OUTSIDE = ['test', 'e2e', 'bench', 'scripts'];

export interface Violation {
  /** The importing file, relative to the root. */
  readonly file: string;
  readonly specifier: string;
  readonly reason: string;
}

const layerOf = new Map(LAYERS.flatMap((folders, layer) => folders.map((folder) => [folder, layer] as const)));
const roomLayerOf = new Map(ENGINE_ROOMS.flatMap((rooms, layer) => rooms.map((room) => [room, layer] as const)));

/** Every relative import in a file's text: static, re-exports, side-effect and dynamic `import()`. */
export function importsOf(text: string): string[] {
  const found: string[] = [];
  const patterns = [
    // import … from '…' / export … from '…', over several lines; the braces hold no quotes.
    /^[ \t]*(?:import|export)\s[^'"`;]*?\bfrom\s*(['"])([^'"]+)\1/gm,
    /^[ \t]*import\s*(['"])([^'"]+)\1/gm,
    /\bimport\(\s*(['"])([^'"]+)\1\s*\)/g,
  ];
  for (const pattern of patterns) for (const match of text.matchAll(pattern)) found.push(match[2]!);
  return found.filter((specifier) => specifier.startsWith('.'));
}

/** The violations under `root` (a checkout: its src/ is checked). */
export function checkImports(root: string): Violation[] {
  const src = join(root, 'src');
  const files = sourceFiles(src);
  const violations: Violation[] = [];
  const engines = enginesSurface(src);
  for (const file of files) {
    if (/\.test\.ts$/.test(file)) continue;
    const [from, ...rest] = relative(src, file).split(sep) as [string, ...string[]];
    const fromLayer = layerOf.get(from);
    const at = relative(root, file).split(sep).join('/');
    if (fromLayer === undefined) {
      violations.push({ file: at, specifier: '', reason: `src/${from}/ has no layer: add it to LAYERS in scripts/check-imports.ts` });
      continue;
    }
    const room = from === 'engines' ? roomOf(at, rest, violations) : undefined;
    for (const specifier of importsOf(readFileSync(file, 'utf8'))) {
      const target = resolve(dirname(file), pathOf(specifier));
      const inSrc = relative(src, target);
      if (inSrc.startsWith('..')) {
        const top = relative(root, target).split(sep)[0]!;
        if (OUTSIDE.includes(top)) violations.push({ file: at, specifier, reason: `product code imports ${top}/` });
        continue;
      }
      const [to, ...toRest] = inSrc.split(sep) as [string, ...string[]];
      if (to === 'engines' && toRest.join('/') === 'index.ts') {
        violations.push({ file: at, specifier, reason: 'src/engines/index.ts is a list that nothing imports: import the module it names' });
        continue;
      }
      if (to === from) {
        if (room !== undefined) violations.push(...roomImport(at, specifier, room, toRest, src));
        continue;
      }
      const toLayer = layerOf.get(to);
      if (toLayer === undefined) violations.push({ file: at, specifier, reason: `src/${to}/ has no layer: add it to LAYERS in scripts/check-imports.ts` });
      else if (toLayer === fromLayer) violations.push({ file: at, specifier, reason: `${from}/ and ${to}/ are on one layer and must not import each other` });
      else if (toLayer > fromLayer) violations.push({ file: at, specifier, reason: `${from}/ (layer ${fromLayer}) imports ${to}/ (layer ${toLayer}), above it` });
      else if (to === 'engines' && !engines.has(target)) {
        violations.push({ file: at, specifier, reason: `src/engines/index.ts does not name src/engines/${toRest.join('/')}: import a module it names, or name this one there` });
      }
    }
  }
  violations.push(...circles(root, files));
  return violations;
}

/** `specifier` without a bundler's query (`?url`, `?worker`). */
const pathOf = (specifier: string) => specifier.replace(/\?.*$/, '');

/**
 * The room of a file of src/engines (`rest`: its path below it); null for the folder's entry,
 * index.ts, which may import every room. A loose file, or a room with no layer, is a violation.
 */
function roomOf(at: string, rest: readonly string[], violations: Violation[]): string | null | undefined {
  if (rest.length === 1) {
    if (rest[0] === 'index.ts') return null;
    violations.push({ file: at, specifier: '', reason: 'src/engines/ holds no file but its index.ts: put this one in its room (ENGINE_ROOMS in scripts/check-imports.ts)' });
    return undefined;
  }
  if (!roomLayerOf.has(rest[0]!)) {
    violations.push({ file: at, specifier: '', reason: `src/engines/${rest[0]}/ has no layer: add it to ENGINE_ROOMS in scripts/check-imports.ts` });
    return undefined;
  }
  return rest[0];
}

/** One import inside src/engines, from `room` (null: the entry) to the file at `toRest` below it. */
function roomImport(at: string, specifier: string, room: string | null, toRest: readonly string[], src: string): Violation[] {
  const to = toRest[0]!;
  if (room === null || to === room || toRest.length === 1) return [];
  const [fromLayer, toLayer] = [roomLayerOf.get(room)!, roomLayerOf.get(to)];
  if (toLayer === undefined) return [];
  if (toLayer === fromLayer) return [{ file: at, specifier, reason: `engines/${room}/ and engines/${to}/ are on one layer and must not import each other` }];
  if (toLayer > fromLayer) return [{ file: at, specifier, reason: `engines/${room}/ (room layer ${fromLayer}) imports engines/${to}/ (room layer ${toLayer}), above it` }];
  if (toRest[1] !== 'index.ts' && existsSync(join(src, 'engines', to, 'index.ts'))) {
    return [{ file: at, specifier, reason: `engines/${to}/ is entered through its index.ts: import that, and name there what it lacks` }];
  }
  return [];
}

/** The files src/engines/index.ts re-exports from: the modules other folders may import. */
function enginesSurface(src: string): Set<string> {
  const entry = join(src, 'engines', 'index.ts');
  if (!existsSync(entry)) return new Set();
  return new Set(importsOf(readFileSync(entry, 'utf8')).map((specifier) => resolve(dirname(entry), pathOf(specifier))));
}

/**
 * Every import circle among `files`, each once (a tangle of several circles is one violation),
 * named by its shortest circle through its first file and the rest of the tangle.
 */
function circles(root: string, files: readonly string[]): Violation[] {
  const known = new Set(files);
  const edges = new Map(files.map((file) => [file, importsOf(readFileSync(file, 'utf8')).map((specifier) => [specifier, resolve(dirname(file), pathOf(specifier))] as const).filter(([, target]) => known.has(target))]));
  const name = (file: string) => relative(root, file).split(sep).join('/');
  return tangles(files, (file) => edges.get(file)!.map(([, target]) => target)).map((tangle) => {
    const start = [...tangle].sort()[0]!;
    const path = shortestCircle(start, (file) => edges.get(file)!.map(([, target]) => target).filter((target) => tangle.has(target)));
    const others = [...tangle].filter((file) => !path.includes(file)).map(name).sort();
    const specifier = edges.get(start)!.find(([, target]) => target === (path[1] ?? start))![0];
    return {
      file: name(start),
      specifier,
      reason: `import circle: ${[...path, start].map(name).join(' → ')}${others.length ? ` (tangled with ${others.join(', ')})` : ''}: move what they share into a file of its own, whose imports run one way`,
    };
  });
}

/** The strongly connected sets of more than one file, or of one that imports itself (Tarjan's). */
function tangles(nodes: readonly string[], next: (node: string) => readonly string[]): Set<string>[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: Set<string>[] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const to of next(node)) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const members = new Set<string>();
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      members.add(member);
    } while (member !== node);
    if (members.size > 1 || next(node).includes(node)) found.push(members);
  };
  for (const node of nodes) if (!index.has(node)) visit(node);
  return found;
}

/** The shortest way from `start` back to it (breadth first), as the files along it, `start` first. */
function shortestCircle(start: string, next: (node: string) => readonly string[]): string[] {
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const to of next(node)) {
      if (to === start) {
        const path = [node];
        while (path[0] !== start) path.unshift(cameFrom.get(path[0]!)!);
        return path;
      }
      if (!cameFrom.has(to)) {
        cameFrom.set(to, node);
        queue.push(to);
      }
    }
  }
  return [start];
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).sort().flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx|js|mjs)$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

if (import.meta.main) {
  const root = resolve(process.argv[2] ?? join(import.meta.dirname, '..'));
  const violations = checkImports(root);
  for (const v of violations) console.error(`${v.file}: ${v.specifier ? `'${v.specifier}': ` : ''}${v.reason}`);
  if (violations.length > 0) {
    console.error(`check-imports: ${violations.length} import(s) against the layer order or in a circle (scripts/check-imports.ts)`);
    process.exit(1);
  }
  console.log('check-imports: no upward imports, no import circles');
}
