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
      'src/engines/x.ts': "import type { R } from '../remote/remote-router.ts';\nexport type X = R;\n",
    });
    const violations = checkImports(root);
    expect(violations.map((v) => v.file).sort()).toEqual(['src/engines/x.ts', 'src/protocol/anthropic/models.ts']);
    expect(violations.find((v) => v.file === 'src/engines/x.ts')!.reason).toMatch(/one layer/);
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

  it('passes this repository', () => {
    expect(checkImports(join(import.meta.dirname, '..'))).toEqual([]);
  });
});
