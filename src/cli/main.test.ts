/**
 * The `inpage-llm` command as a user runs it: a child process on the project's Node, from source.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { QWEN3_THINKING_CHAT, writeModel } from '../../test/support/real-tokenizer-models.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const NODE = join(ROOT, 'node_modules/.bin/node');
const LISTENING = /^inpage-llm \S+ listening on (http:\/\/\S+\/v1)$/m;

const children: ChildProcess[] = [];
afterEach(() => {
  // A failed test must not leave its server running.
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

function cli(...args: string[]) {
  return cliWith({}, ...args);
}

function cliWith(env: Record<string, string>, ...args: string[]) {
  // A key in the developer's own environment must not lock the servers these tests start.
  const child = spawn(NODE, ['src/cli/main.ts', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, INPAGE_LLM_API_KEY: undefined, ...env } });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (data: Buffer) => (stdout += data.toString('utf8')));
  child.stderr!.on('data', (data: Buffer) => (stderr += data.toString('utf8')));
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  return { child, exited, output: () => ({ stdout, stderr }) };
}

async function waitFor<T>(probe: () => T | undefined, ms: number, what: () => string): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting: ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The model list and the rest follow the URL line once the models' states are read; "browsers:" is last. */
function summarised(run: ReturnType<typeof cli>): Promise<true> {
  return waitFor(() => (/browsers: /.test(run.output().stdout) ? true : undefined), 20_000, () => JSON.stringify(run.output()));
}

describe('npx inpage-llm serve', () => {
  it('serves the tiny models, answers the OpenAI SDK, and exits 0 on SIGTERM', async () => {
    const run = cli('serve', '--tiny', '--port', '0');
    const show = () => JSON.stringify(run.output());
    const url = await waitFor(() => LISTENING.exec(run.output().stdout)?.[1], 20_000, show);
    await summarised(run);
    expect(run.output().stdout.match(new RegExp(LISTENING.source, 'gm'))).toHaveLength(1);
    expect(run.output().stdout).toMatch(/tiny-chat +chat +on disk/);

    const client = new OpenAI({ baseURL: url, apiKey: 'local', maxRetries: 0 });
    const chat = await client.chat.completions.create({ model: 'tiny-chat', max_tokens: 4, messages: [{ role: 'user', content: 'hello' }] });
    expect(chat.usage?.completion_tokens).toBeGreaterThan(0);

    const signalled = Date.now();
    run.child.kill('SIGTERM');
    const code = await Promise.race([run.exited, new Promise<string>((resolve) => setTimeout(() => resolve('still running'), 5000))]);
    expect(code, show()).toBe(0);
    expect(Date.now() - signalled).toBeLessThan(5000);
    expect(run.output().stdout).toContain('closed.');
    await expect(fetch(`${url}/models`)).rejects.toThrow();
  });

  it('exits when the npm that started it gets SIGTERM, which npm does not pass on to it', async () => {
    // As `npx inpage-llm serve` runs it: npm, then `sh -c`, then the server. npm hands SIGTERM to
    // the shell only, which dies of it; the server must notice that its npm is gone.
    // Its own process group, so that a failed test can still kill the server npm left behind.
    const child = spawn('npm', ['exec', '--', NODE, 'src/cli/main.ts', 'serve', '--tiny', '--port', '0'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, INPAGE_LLM_API_KEY: undefined },
      detached: true,
    });
    try {
      let stdout = '';
      child.stdout!.on('data', (data: Buffer) => (stdout += data.toString('utf8')));
      child.stderr!.on('data', (data: Buffer) => (stdout += data.toString('utf8')));
      const url = await waitFor(() => LISTENING.exec(stdout)?.[1], 30_000, () => stdout);
      await waitFor(() => (/browsers: /.test(stdout) ? true : undefined), 20_000, () => stdout);
      expect((await fetch(`${url}/models`)).status).toBe(200);

      child.kill('SIGTERM');
      await waitFor(() => (/inpage-llm: closed\./.test(stdout) ? true : undefined), 5000, () => stdout);
      expect(stdout).toMatch(/npm, which started it, is gone, closing/);
      await expect(fetch(`${url}/models`)).rejects.toThrow();
    } finally {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // The group is gone already: the server exited.
      }
    }
  });

  it('closes gracefully on SIGHUP (the terminal closing)', async () => {
    const run = cli('serve', '--tiny', '--port', '0');
    const url = await waitFor(() => LISTENING.exec(run.output().stdout)?.[1], 20_000, () => JSON.stringify(run.output()));
    await summarised(run);
    run.child.kill('SIGHUP');
    const code = await Promise.race([run.exited, new Promise<string>((resolve) => setTimeout(() => resolve('still running'), 5000))]);
    expect(code, JSON.stringify(run.output())).toBe(0);
    expect(run.output().stdout).toContain('SIGHUP, closing');
    await expect(fetch(`${url}/models`)).rejects.toThrow();
  });

  it('takes keys from INPAGE_LLM_API_KEY and --api-key-file, out of the process list, and says who may call', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'inpage-cli-keys-'));
    try {
      const file = join(dir, 'keys');
      await writeFile(file, '# one a line\nsk-from-file\n');
      const run = cliWith({ INPAGE_LLM_API_KEY: 'sk-from-env' }, 'serve', '--tiny', '--port', '0', '--api-key-file', file, '--cors-origin', 'https://app.example');
      const url = await waitFor(() => LISTENING.exec(run.output().stdout)?.[1], 20_000, () => JSON.stringify(run.output()));
      await summarised(run);
      expect(run.output().stdout).toContain('2 API key(s) required');
      expect(run.output().stdout).toContain('browsers: pages on this machine, https://app.example (--cors-origin)');
      for (const [key, status] of [['sk-from-env', 200], ['sk-from-file', 200], ['sk-wrong', 401]] as const) {
        const answer = await fetch(`${url}/models`, { headers: { authorization: `Bearer ${key}`, origin: 'https://app.example' } });
        expect(answer.status, key).toBe(status);
        expect(answer.headers.get('access-control-allow-origin')).toBe('https://app.example');
      }
      expect((await fetch(`${url}/models`, { headers: { authorization: 'Bearer sk-from-env', origin: 'https://evil.example' } })).status).toBe(403);
      run.child.kill('SIGTERM');
      expect(await run.exited).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses an empty key source rather than start open', async () => {
    const run = cliWith({ INPAGE_LLM_API_KEY: '' }, 'serve', '--tiny', '--port', '0');
    expect(await run.exited).toBe(1);
    expect(run.output().stderr).toMatch(/INPAGE_LLM_API_KEY is set but holds no key/);
  });

  it('refuses a malformed option with the usage and exit code 1', async () => {
    const run = cli('serve', '--port', 'eighty');
    expect(await run.exited).toBe(1);
    expect(run.output().stderr).toMatch(/--port takes a whole number/);
    expect(run.output().stderr).toMatch(/npx inpage-llm serve \[options\]/);
    const both = cli('serve', '--tiny', '--models', 'x');
    expect(await both.exited).toBe(1);
    expect(both.output().stderr).toMatch(/--tiny and --models/);
    const cache = cli('serve', '--tiny', '--prefix-cache-mb', 'lots');
    expect(await cache.exited).toBe(1);
    expect(cache.output().stderr).toMatch(/--prefix-cache-mb takes a whole number from 0/);
  });

  it('says a --config model whose files are in the models folder is on disk, and one whose are not is not', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'inpage-cli-config-'));
    try {
      const config = join(dir, 'models.json');
      await writeFile(
        config,
        JSON.stringify({
          models: [
            { engine: 'transformers', id: 'my-chat', kind: 'chat', source: 'tiny-chat' },
            { engine: 'transformers', id: 'elsewhere', kind: 'chat', source: 'no-such-folder' },
          ],
        }),
      );
      const run = cli('serve', '--tiny', '--port', '0', '--config', config);
      await summarised(run);
      expect(run.output().stdout).toMatch(/my-chat +chat +on disk\n/);
      expect(run.output().stdout).toMatch(/elsewhere +chat +not on disk/);
      run.child.kill('SIGTERM');
      await run.exited;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('with --models DIR lists only what the folder holds: no tiny models it lacks, downloaded from the files there', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'inpage-cli-folder-'));
    try {
      await writeModel(QWEN3_THINKING_CHAT, join(dir, 'models', QWEN3_THINKING_CHAT.id));
      const config = join(dir, 'models.json');
      const entry = { engine: 'transformers', id: QWEN3_THINKING_CHAT.id, kind: 'chat', source: QWEN3_THINKING_CHAT.id, reasoning: { open: '<think>', close: '</think>' } };
      await writeFile(config, JSON.stringify({ models: [entry] }));
      const run = cli('serve', '--port', '0', '--models', join(dir, 'models'), '--config', config);
      const url = await waitFor(() => LISTENING.exec(run.output().stdout)?.[1], 20_000, () => JSON.stringify(run.output()));
      await summarised(run);
      expect(run.output().stdout).toMatch(/qwen3-thinking-chat +chat +on disk\n/);
      expect(run.output().stdout).not.toMatch(/tiny-/);

      const { data } = (await (await fetch(`${url}/models`)).json()) as { data: { id: string; local?: { downloaded: boolean } }[] };
      const downloaded = Object.fromEntries(data.map((model) => [model.id, model.local?.downloaded]));
      expect(downloaded).not.toHaveProperty('tiny-chat');
      expect(downloaded).not.toHaveProperty('tiny-embed');
      expect(downloaded[QWEN3_THINKING_CHAT.id]).toBe(true);
      // Hub models stay listed, as not on disk: --allow-remote would fetch them.
      expect(downloaded['Qwen2.5-0.5B-Instruct-onnx']).toBe(false);
      expect((await fetch(`${url}/models/tiny-chat`)).status).toBe(404);
      const chat = await fetch(`${url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'tiny-chat', messages: [{ role: 'user', content: 'hi' }] }) });
      expect(chat.status).toBe(404);
      run.child.kill('SIGTERM');
      expect(await run.exited).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('puts another server behind this one with --config: a remote model, translated to the Anthropic API it speaks', async () => {
    const upstream = cli('serve', '--tiny', '--port', '0', '--api-key', 'sk-upstream');
    const upstreamUrl = await waitFor(() => LISTENING.exec(upstream.output().stdout)?.[1], 20_000, () => JSON.stringify(upstream.output()));
    const dir = await mkdtemp(join(tmpdir(), 'inpage-cli-config-'));
    try {
      const config = join(dir, 'routes.json');
      await writeFile(config, JSON.stringify({ models: [{ engine: 'remote', id: 'team-chat', upstream: { baseURL: upstreamUrl, model: 'tiny-chat', speaks: ['anthropic'], apiKey: 'sk-upstream' } }] }));
      const front = cli('serve', '--tiny', '--port', '0', '--config', config);
      const url = await waitFor(() => LISTENING.exec(front.output().stdout)?.[1], 20_000, () => JSON.stringify(front.output()));
      await summarised(front);
      expect(front.output().stdout).toMatch(new RegExp(`team-chat +chat +forwarded to ${upstreamUrl.replace(/[.]/g, '\\.')}`));

      const client = new OpenAI({ baseURL: url, apiKey: 'local', maxRetries: 0 });
      const { data, response } = await client.chat.completions.create({ model: 'team-chat', max_tokens: 4, messages: [{ role: 'user', content: 'hello' }] }).withResponse();
      expect(data.object).toBe('chat.completion');
      expect(data.usage?.completion_tokens).toBeGreaterThan(0);
      expect(response.headers.get('x-inpage-llm-served-by')).toBe('team-chat');
      expect(response.headers.get('x-inpage-llm-upstream')).toBe(upstreamUrl);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it.each([
    ['not json', /--config .*routes\.json: .*JSON/],
    [JSON.stringify({ model: [] }), /unknown key\(s\) "model"; expected "models" and\/or "fallbacks"/],
    [JSON.stringify({ fallbacks: { 'tiny-chat': 'nowhere' } }), /The fallback of "tiny-chat" must be another model's id, not "nowhere"/],
    [JSON.stringify({ models: [{ engine: 'remote', id: 'r', upstream: { baseURL: 'localhost:11434' } }] }), /"r": upstream\.baseURL must be http\(s\) URLs/],
  ])('refuses the config %s with a message that names the mistake, exit code 1', async (text, message) => {
    const dir = await mkdtemp(join(tmpdir(), 'inpage-cli-config-'));
    try {
      await writeFile(join(dir, 'routes.json'), text);
      const run = cli('serve', '--tiny', '--port', '0', '--config', join(dir, 'routes.json'));
      expect(await run.exited).toBe(1);
      expect(run.output().stderr).toMatch(message);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('lists serve and schemas check in the usage', async () => {
    const run = cli('--help');
    expect(await run.exited).toBe(0);
    expect(run.output().stdout).toMatch(/serve +Runs the OpenAI- and Anthropic-compatible API/);
    expect(run.output().stdout).toMatch(/schemas check\n +Says whether each JSON schema can be enforced here/);
  });
});
