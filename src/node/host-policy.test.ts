import { describe, expect, it } from 'vitest';
import { createHostPolicy } from './host-policy.ts';

describe('createHostPolicy', () => {
  it('answers IP addresses and localhost names by default, and nothing a DNS name could rebind', () => {
    const allowed = createHostPolicy();
    for (const host of ['127.0.0.1:8080', '127.0.0.1', '[::1]:8080', 'localhost:8080', 'LOCALHOST', 'app.localhost:3000', '192.168.1.5:8080', '[fe80::1]', '10.0.0.1.'])
      expect(allowed(host), host).toBe(true);
    for (const host of ['evil.example', 'evil.example:8080', 'localhost.evil.example', '127.0.0.1.evil.example', 'my-box', '', 'a/b', 'user@localhost', 'localhost:8080/x'])
      expect(allowed(host), host).toBe(false);
  });

  it('lets a request without Host through (no browser sends one)', () => {
    expect(createHostPolicy()(undefined)).toBe(true);
  });

  it('adds listed names, a leading dot for a domain and every name under it', () => {
    const allowed = createHostPolicy(['llm.lan', '.corp.example']);
    expect(allowed('llm.lan:8080')).toBe(true);
    expect(allowed('LLM.LAN.')).toBe(true);
    expect(allowed('corp.example')).toBe(true);
    expect(allowed('gpu.box.corp.example:80')).toBe(true);
    expect(allowed('other.lan')).toBe(false);
    expect(allowed('evilcorp.example')).toBe(false);
  });

  it('answers the name the server is bound to', () => {
    expect(createHostPolicy([], 'my-box.local')('my-box.local:8080')).toBe(true);
    expect(createHostPolicy([], '0.0.0.0')('my-box.local:8080')).toBe(false);
  });

  it('answers any name with *', () => {
    expect(createHostPolicy(['*'])('evil.example')).toBe(true);
  });
});
