import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkImports, importsOf } from './check-imports.ts';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** A checkout with these files (path → text) and nothing else. */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'check-imports-'));
  roots.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const CLEAN = {
  'src/core/errors.ts': 'export class GatewayError extends Error {}\n',
  'src/protocol/openai/chat.ts': "import { GatewayError } from '../../core/errors.ts';\nexport const chat = GatewayError;\n",
  'src/remote/remote-router.ts': "import type { GatewayError } from '../core/errors.ts';\nexport type R = GatewayError;\n",
  'src/gateway/create-gateway.ts': "import { chat } from '../protocol/openai/chat.ts';\nimport '../remote/remote-router.ts';\nexport const g = chat;\n",
};

/** src/engines with its entry, two low rooms (files/ behind its index), hosting above them, and an adapter. */
const ENGINES = {
  'src/engines/index.ts': "export { createHost } from './hosting/host.ts';\nexport { listCached } from './files/index.ts';\n",
  'src/engines/files/index.ts': "export { listCached } from './cache.ts';\n",
  'src/engines/files/cache.ts': "export const listCached = () => [];\n",
  'src/engines/decoding/bias.ts': "export const bias = 1;\n",
  'src/engines/hosting/host.ts': "import type { GatewayError } from '../../core/errors.ts';\nexport const createHost = (e?: GatewayError) => e;\n",
  'src/engines/webllm/adapter.ts': "import { createHost } from '../hosting/host.ts';\nimport { listCached } from '../files/index.ts';\nimport { bias } from '../decoding/bias.ts';\nexport const a = [createHost, listCached, bias];\n",
  'src/rpc/expose-host.ts': "import { createHost } from '../engines/hosting/host.ts';\nexport const e = createHost;\n",
};

describe('check-imports', () => {
  it('passes a tree whose imports all go down', () => {
    expect(checkImports(tree(CLEAN))).toEqual([]);
  });

  it('fails an upward import from core/, however it is written', () => {
    const root = tree({
      ...CLEAN,
      'src/core/engine.ts': "import type {\n  R,\n} from '../remote/remote-router.ts';\nexport type E = R;\n",
      'src/core/lazy.ts': "export const load = () => import('../gateway/create-gateway.ts');\n",
      'src/core/again.ts': "export { g } from '../gateway/create-gateway.ts';\n",
    });
    expect(checkImports(root).map((v) => [v.file, v.specifier])).toEqual(
      expect.arrayContaining([
        ['src/core/engine.ts', '../remote/remote-router.ts'],
        ['src/core/lazy.ts', '../gateway/create-gateway.ts'],
        ['src/core/again.ts', '../gateway/create-gateway.ts'],
      ]),
    );
    expect(checkImports(root)).toHaveLength(3);
  });

  it('lets remote/ speak through protocol/, but not the other way, and keeps remote/ and engines/ apart', () => {
    const root = tree({
      ...CLEAN,
      'src/remote/client-of.ts': "import { chat } from '../protocol/openai/chat.ts';\nexport const x = chat;\n",
      'src/protocol/anthropic/models.ts': "import type { R } from '../../remote/remote-router.ts';\nexport type M = R;\n",
      'src/engines/hosting/x.ts': "import type { R } from '../../remote/remote-router.ts';\nexport type X = R;\n",
    });
    const violations = checkImports(root);
    expect(violations.map((v) => v.file).sort()).toEqual(['src/engines/hosting/x.ts', 'src/protocol/anthropic/models.ts']);
    expect(violations.find((v) => v.file === 'src/engines/hosting/x.ts')!.reason).toMatch(/one layer/);
  });

  it('fails product code that imports test support, and a folder with no layer', () => {
    const root = tree({
      ...CLEAN,
      'src/gateway/auth.ts': "import { x } from '../../test/support/harness.ts';\nexport const a = x;\n",
      'src/newthing/a.ts': "export const a = 1;\n",
    });
    expect(checkImports(root).map((v) => v.reason)).toEqual(expect.arrayContaining(['product code imports test/', expect.stringMatching(/src\/newthing\/ has no layer/)]));
  });

  it('leaves test files out of the order', () => {
    expect(checkImports(tree({ ...CLEAN, 'src/core/errors.test.ts': "import '../gateway/create-gateway.ts';\n" }))).toEqual([]);
  });

  it('does not read imports in comments or strings as imports', () => {
    expect(importsOf("/**\n * import x from '../gateway/a.ts'\n */\nconst s = \"from '../gateway/b.ts'\";\n")).toEqual([]);
  });

  it('exits non-zero, naming the file, when run on a tree with an upward import', () => {
    const root = tree({ ...CLEAN, 'src/core/context.ts': "import type { R } from '../remote/remote-router.ts';\nexport type C = R;\n" });
    const run = spawnSync(process.execPath, [join(import.meta.dirname, 'check-imports.ts'), root], { encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("src/core/context.ts: '../remote/remote-router.ts': core/ (layer 0) imports remote/ (layer 2), above it");
  });

  it('fails an import circle, type-only imports included, naming its files', () => {
    const root = tree({
      ...CLEAN,
      'src/core/a.ts': "import type { B } from './b.ts';\nexport type A = B[];\n",
      'src/core/b.ts': "import type { C } from './c.ts';\nexport type B = C;\n",
      'src/core/c.ts': "export type { A } from './a.ts';\nexport type C = string;\n",
      'src/core/d.ts': "import type { A } from './a.ts';\nexport type D = A;\n",
    });
    const violations = checkImports(root);
    expect(violations).toHaveLength(1);
    expect(violations[0]).toMatchObject({ file: 'src/core/a.ts', specifier: './b.ts' });
    expect(violations[0]!.reason).toMatch(/^import circle: src\/core\/a\.ts → src\/core\/b\.ts → src\/core\/c\.ts → src\/core\/a\.ts: /);
  });

  it('names a tangle of circles once, with the files beyond its shortest circle', () => {
    const root = tree({
      ...CLEAN,
      'src/gateway/a.ts': "import './b.ts';\n",
      'src/gateway/b.ts': "import './a.ts';\nimport './c.ts';\n",
      'src/gateway/c.ts': "export const lazy = () => import('./b.ts');\n",
    });
    const violations = checkImports(root);
    expect(violations.map((v) => v.reason)).toEqual([expect.stringMatching(/^import circle: src\/gateway\/a\.ts → src\/gateway\/b\.ts → src\/gateway\/a\.ts \(tangled with src\/gateway\/c\.ts\)/)]);
  });

  it('passes rooms of src/engines whose imports all go down', () => {
    expect(checkImports(tree({ ...CLEAN, ...ENGINES }))).toEqual([]);
  });

  it('fails an import up or across the rooms of src/engines, a loose file there, and a room with no layer', () => {
    const root = tree({
      ...CLEAN,
      ...ENGINES,
      'src/engines/files/cache.ts': "import { createHost } from '../hosting/host.ts';\nexport const listCached = () => [createHost];\n",
      'src/engines/decoding/bias.ts': "import type { X } from '../device/gpu.ts';\nexport const bias = 1 as X;\n",
      'src/engines/device/gpu.ts': 'export type X = number;\n',
      'src/engines/helpers.ts': 'export const h = 1;\n',
      'src/engines/newroom/x.ts': 'export const x = 1;\n',
    });
    expect(checkImports(root).map((v) => [v.file, v.reason])).toEqual(
      expect.arrayContaining([
        ['src/engines/files/cache.ts', 'engines/files/ (room layer 0) imports engines/hosting/ (room layer 1), above it'],
        ['src/engines/decoding/bias.ts', 'engines/decoding/ and engines/device/ are on one layer and must not import each other'],
        ['src/engines/helpers.ts', expect.stringMatching(/holds no file but its index\.ts/)],
        ['src/engines/newroom/x.ts', expect.stringMatching(/src\/engines\/newroom\/ has no layer: add it to ENGINE_ROOMS/)],
      ]),
    );
    expect(checkImports(root)).toHaveLength(4);
  });

  it('keeps other folders to the modules src/engines/index.ts names, and the rooms to a room\'s index', () => {
    const root = tree({
      ...CLEAN,
      ...ENGINES,
      'src/rpc/deep.ts': "import { listCached } from '../engines/files/cache.ts';\nexport const d = listCached;\n",
      'src/rpc/barrel.ts': "import { createHost } from '../engines/index.ts';\nexport const b = createHost;\n",
      'src/engines/webllm/deep.ts': "import { listCached } from '../files/cache.ts';\nexport const d = listCached;\n",
    });
    expect(checkImports(root).map((v) => [v.file, v.reason]).sort()).toEqual([
      ['src/engines/webllm/deep.ts', 'engines/files/ is entered through its index.ts: import that, and name there what it lacks'],
      ['src/rpc/barrel.ts', 'src/engines/index.ts is a list that nothing imports: import the module it names'],
      ['src/rpc/deep.ts', 'src/engines/index.ts does not name src/engines/files/cache.ts: import a module it names, or name this one there'],
    ]);
  });

  it('exits non-zero, naming the files, when run on a tree with an import circle', () => {
    const root = tree({ ...CLEAN, 'src/core/a.ts': "import type { B } from './b.ts';\nexport type A = B;\n", 'src/core/b.ts': "import type { A } from './a.ts';\nexport type B = A;\n" });
    const run = spawnSync(process.execPath, [join(import.meta.dirname, 'check-imports.ts'), root], { encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("src/core/a.ts: './b.ts': import circle: src/core/a.ts → src/core/b.ts → src/core/a.ts");
  });

  it('passes this repository', () => {
    expect(checkImports(join(import.meta.dirname, '..'))).toEqual([]);
  });
});
