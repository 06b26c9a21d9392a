/**
 * Fails when a source file imports upward: a folder of src/ may import only folders on a lower
 * layer (and itself). Run by `npm run typecheck`; `node scripts/check-imports.ts [root]` checks
 * another tree (the unit test plants an upward import in a temporary one).
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
 * @module
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
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

/** Folders beside src/ that product code must not import. */
const OUTSIDE = ['test', 'e2e', 'bench', 'scripts'];

export interface Violation {
  /** The importing file, relative to the root. */
  readonly file: string;
  readonly specifier: string;
  readonly reason: string;
}

const layerOf = new Map(LAYERS.flatMap((folders, layer) => folders.map((folder) => [folder, layer] as const)));

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
  const violations: Violation[] = [];
  for (const file of sourceFiles(src)) {
    if (/\.test\.ts$/.test(file)) continue;
    const from = relative(src, file).split(sep)[0]!;
    const fromLayer = layerOf.get(from);
    const at = relative(root, file).split(sep).join('/');
    if (fromLayer === undefined) {
      violations.push({ file: at, specifier: '', reason: `src/${from}/ has no layer: add it to LAYERS in scripts/check-imports.ts` });
      continue;
    }
    for (const specifier of importsOf(readFileSync(file, 'utf8'))) {
      const target = resolve(dirname(file), specifier);
      const inSrc = relative(src, target);
      if (inSrc.startsWith('..')) {
        const top = relative(root, target).split(sep)[0]!;
        if (OUTSIDE.includes(top)) violations.push({ file: at, specifier, reason: `product code imports ${top}/` });
        continue;
      }
      const to = inSrc.split(sep)[0]!;
      if (to === from) continue;
      const toLayer = layerOf.get(to);
      if (toLayer === undefined) violations.push({ file: at, specifier, reason: `src/${to}/ has no layer: add it to LAYERS in scripts/check-imports.ts` });
      else if (toLayer === fromLayer) violations.push({ file: at, specifier, reason: `${from}/ and ${to}/ are on one layer and must not import each other` });
      else if (toLayer > fromLayer) violations.push({ file: at, specifier, reason: `${from}/ (layer ${fromLayer}) imports ${to}/ (layer ${toLayer}), above it` });
    }
  }
  return violations;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
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
    console.error(`check-imports: ${violations.length} import(s) against the layer order (scripts/check-imports.ts)`);
    process.exit(1);
  }
  console.log('check-imports: no upward imports');
}
