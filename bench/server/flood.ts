/**
 * Admitted streams under a flood: `npx inpage-llm serve --tiny` in a child process, and
 * `--admitted` clients (the server's whole `--max-requests`, so it is full) each sending one
 * streamed chat request after another (and, told 429, waiting the second `retry-after` says). In every other phase 40 more clients join
 * (bench/server/flood-clients.ts, a process of their own) that send the same request again the
 * moment they are answered, ignoring `retry-after`. What is measured is how fast the admitted
 * streams run: tokens per second of each stream, from its first token to its last. Phases alternate
 * alone / flooded so that drift of a shared machine hits both; the judgement is that the flooded
 * phases' median is within 20% of the alone phases'.
 *
 *   node bench/server/flood.ts [--phases 6] [--seconds 5] [--admitted 16] [--clients 40] [--cli src/cli/main.ts] [--json out.json]
 *
 * `--cli` runs another checkout's command (a baseline).
 * @module
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { FloodCounts } from './flood-clients.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const { values } = parseArgs({
  options: {
    phases: { type: 'string', default: '6' },
    seconds: { type: 'string', default: '5' },
    admitted: { type: 'string', default: '16' },
    clients: { type: 'string', default: '40' },
    cli: { type: 'string', default: 'src/cli/main.ts' },
    json: { type: 'string' },
  },
});
const PHASES = Number(values.phases);
const PHASE_MS = Number(values.seconds) * 1000;
const ADMITTED = Number(values.admitted);
const CLIENTS = Number(values.clients);
const REQUEST = JSON.stringify({ model: 'tiny-chat', stream: true, max_tokens: 40, messages: [{ role: 'user', content: 'Count.' }] });

interface StreamTiming {
  readonly status: number;
  /** When each content event arrived (performance.now()). */
  readonly arrivals: number[];
}

interface Phase {
  readonly flooded: boolean;
  /** Tokens per second of each admitted stream, first token to last. */
  readonly rates: number[];
  /** The admitted clients' requests by status (429s: the flood took their turn). */
  readonly statuses: Record<string, number>;
  readonly flood?: FloodCounts;
}

async function startServer(): Promise<{ url: string; child: ChildProcess }> {
  // Keyless whatever the environment says: the clients here send no key.
  const child = spawn(process.execPath, [values.cli, 'serve', '--tiny', '--port', '0'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, INPAGE_LLM_API_KEY: undefined } });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (data: Buffer) => {
      out += data.toString('utf8');
      const match = /listening on (http:\/\/\S+\/v1)/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the server exited (${code}) before listening:\n${out}`)));
  });
  return { url, child };
}

async function stream(url: string): Promise<StreamTiming> {
  const response = await fetch(`${url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: REQUEST });
  const arrivals: number[] = [];
  if (!response.ok) return (await response.arrayBuffer(), { status: response.status, arrivals });
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of response.body!) {
    const at = performance.now();
    buffer += decoder.decode(chunk, { stream: true });
    const events = buffer.split('\n\n');
    buffer = events.pop()!;
    for (const event of events) {
      const data = event.replace(/^data: /, '');
      if (data !== '[DONE]' && JSON.parse(data).choices[0]?.delta?.content) arrivals.push(at);
    }
  }
  return { status: response.status, arrivals };
}

async function startFlood(url: string): Promise<{ go(): void; pause(): Promise<FloodCounts>; exit(): void }> {
  const child = spawn(process.execPath, ['bench/server/flood-clients.ts', url, String(CLIENTS)], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  await once(child, 'message');
  return {
    go: () => child.send('go'),
    async pause() {
      const reply = once(child, 'message');
      child.send('pause');
      return ((await reply) as [FloodCounts])[0];
    },
    exit: () => child.send('exit'),
  };
}

/** Waits until the server takes a request again: the flood's last admitted ones are gone. */
async function settle(url: string): Promise<void> {
  for (;;) {
    const response = await fetch(`${url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'tiny-chat', max_tokens: 1, messages: [{ role: 'user', content: 'x' }] }) });
    await response.arrayBuffer();
    if (response.ok) return;
  }
}

/** `ADMITTED` clients streaming one request after another for `PHASE_MS`, the flood running or not. */
async function phase(url: string, flood: Awaited<ReturnType<typeof startFlood>> | undefined): Promise<Phase> {
  const end = performance.now() + PHASE_MS;
  const rates: number[] = [];
  const statuses: Record<string, number> = {};
  const client = async () => {
    while (performance.now() < end) {
      const t = await stream(url);
      statuses[t.status] = (statuses[t.status] ?? 0) + 1;
      if (t.arrivals.length > 1) rates.push((t.arrivals.length - 1) / ((t.arrivals.at(-1)! - t.arrivals[0]!) / 1000));
      // These clients behave: they wait as long as `retry-after` (1 s) says.
      if (t.status === 429) await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  };
  const clients = Array.from({ length: ADMITTED }, client);
  // The admitted clients' first requests reach the server before the flood starts.
  await new Promise((resolve) => setTimeout(resolve, 50));
  flood?.go();
  await Promise.all(clients);
  const counts = await flood?.pause();
  await settle(url);
  return { flooded: flood !== undefined, rates, statuses, ...(counts ? { flood: counts } : {}) };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

const counted = (statuses: Record<string, number>) => Object.entries(statuses).map(([status, n]) => `${n} × ${status}`).join(', ');

async function main(): Promise<void> {
  const load0 = loadavg();
  const { url, child } = await startServer();
  const flood = await startFlood(url);
  try {
    console.log(`flood bench: ${values.cli} serve --tiny at ${url}; ${ADMITTED} admitted clients, ${CLIENTS} flood clients; ${PHASES} phases of ${PHASE_MS / 1000} s each way; load ${load0.map((l) => l.toFixed(2)).join(' ')}`);
    // Warm-up: the model's load, the JIT.
    await stream(url);
    const phases: Phase[] = [];
    for (let i = 0; i < 2 * PHASES; i++) {
      const p = await phase(url, i % 2 === 1 ? flood : undefined);
      phases.push(p);
      const flooding = p.flood ? `; flood: ${counted(p.flood.statuses)} (${Math.round((p.flood.statuses['429'] ?? 0) / p.flood.seconds)} 429/s)` : '';
      console.log(`  ${p.flooded ? 'flooded' : 'alone  '}: median ${median(p.rates).toFixed(0)} tokens/s over ${p.rates.length} streams (admitted clients: ${counted(p.statuses)})${flooding}`);
    }
    const alone = median(phases.filter((p) => !p.flooded).flatMap((p) => p.rates));
    const flooded = median(phases.filter((p) => p.flooded).flatMap((p) => p.rates));
    const ratio = flooded / alone;
    const met = ratio >= 0.8;
    const load1 = loadavg();
    console.log(`admitted streams: ${alone.toFixed(0)} tokens/s alone, ${flooded.toFixed(0)} tokens/s under the flood (${(ratio * 100).toFixed(0)}%): ${met ? 'met' : 'NOT met'} (within 20%); load ${load1.map((l) => l.toFixed(2)).join(' ')}`);
    if (values.json) writeFileSync(values.json, JSON.stringify({ cli: values.cli, admitted: ADMITTED, clients: CLIENTS, alone, flooded, ratio, met, load: [load0, load1], phases }, null, 2));
    process.exitCode = met ? 0 : 1;
  } finally {
    flood.exit();
    child.kill('SIGTERM');
  }
}

await main();
