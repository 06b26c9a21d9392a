import { describe, expect, it } from 'vitest';
import { cpuThreads, embedderPolicyFor, isolationHeaders, withIsolationHeaders } from './cross-origin-isolation.ts';

const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';
const OLD_CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/90.0.0.0 Safari/537.36';
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:153.0) Gecko/20100101 Firefox/153.0';
const OLD_FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:115.0) Gecko/20100101 Firefox/115.0';
const SAFARI = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Safari/605.1.15';
const IOS_CHROME = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/120.0 Mobile/15E148 Safari/604.1';

describe('cross-origin isolation headers', () => {
  it('asks for credentialless where the browser has it, require-corp elsewhere', () => {
    expect(embedderPolicyFor(CHROME)).toBe('credentialless');
    expect(embedderPolicyFor(FIREFOX)).toBe('credentialless');
    expect(embedderPolicyFor(OLD_CHROME)).toBe('require-corp');
    expect(embedderPolicyFor(OLD_FIREFOX)).toBe('require-corp');
    expect(embedderPolicyFor(SAFARI)).toBe('require-corp');
    // Every iOS browser is WebKit underneath.
    expect(embedderPolicyFor(IOS_CHROME)).toBe('require-corp');
    expect(isolationHeaders(CHROME)).toEqual({ 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'credentialless' });
  });

  it('adds them to a page response, keeping its status, body and headers', async () => {
    const page = new Response('<p>hi</p>', { status: 200, headers: { 'content-type': 'text/html' } });
    const isolated = withIsolationHeaders(page, SAFARI);
    expect(isolated.headers.get('cross-origin-opener-policy')).toBe('same-origin');
    expect(isolated.headers.get('cross-origin-embedder-policy')).toBe('require-corp');
    expect(isolated.headers.get('content-type')).toBe('text/html');
    expect(await isolated.text()).toBe('<p>hi</p>');
  });
});

describe('cpuThreads', () => {
  it('runs on one thread without isolation, and says why', () => {
    const { threads, reason } = cpuThreads(false, 8);
    expect(threads).toBe(1);
    expect(reason).toMatch(/not cross-origin isolated/);
  });

  it('uses every core when isolated, at most four, or what the app asked within the cores', () => {
    expect(cpuThreads(true, 2)).toMatchObject({ threads: 2, reason: expect.stringMatching(/every core/) });
    expect(cpuThreads(true, 16).threads).toBe(4);
    expect(cpuThreads(true, undefined).threads).toBe(1);
    expect(cpuThreads(true, 8, 6).threads).toBe(6);
    expect(cpuThreads(true, 2, 6).threads).toBe(2);
    expect(cpuThreads(true, 8, 0).threads).toBe(1);
  });
});
