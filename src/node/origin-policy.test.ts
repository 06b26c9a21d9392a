import { describe, expect, it } from 'vitest';
import { createOriginPolicy, isLoopbackOrigin } from './origin-policy.ts';

describe('isLoopbackOrigin', () => {
  it.each(['http://localhost', 'http://localhost:5173', 'https://localhost:8443', 'http://app.localhost:3000', 'http://127.0.0.1:8080', 'http://127.10.0.1', 'http://[::1]:5173'])('%s is this machine', (origin) => {
    expect(isLoopbackOrigin(origin)).toBe(true);
  });

  it.each([
    'https://evil.example',
    'http://localhost.evil.example',
    'http://127.0.0.1.evil.example',
    'http://192.168.1.5:3000',
    'http://[::2]',
    'null',
    'file://',
    'chrome-extension://abcdef',
    // Not the exact form a browser sends.
    'http://localhost:5173/',
    'http://user@localhost',
    '',
  ])('%s is not', (origin) => {
    expect(isLoopbackOrigin(origin)).toBe(false);
  });
});

describe('createOriginPolicy', () => {
  it('allows only pages on this machine by default', () => {
    const policy = createOriginPolicy();
    expect(policy.any).toBe(false);
    expect(policy.allows('http://localhost:5173')).toBe(true);
    expect(policy.allows('https://evil.example')).toBe(false);
  });

  it('adds the listed origins, written as a user might', () => {
    const policy = createOriginPolicy(['https://App.Example/', 'http://192.168.1.5:3000', 'null']);
    expect(policy.allows('https://app.example')).toBe(true);
    expect(policy.allows('http://192.168.1.5:3000')).toBe(true);
    expect(policy.allows('null')).toBe(true);
    expect(policy.allows('http://192.168.1.5:3001')).toBe(false);
    expect(policy.allows('https://evil.example')).toBe(false);
    expect(policy.allows('http://localhost:1')).toBe(true);
  });

  it('allows every page with *', () => {
    const policy = createOriginPolicy(['https://app.example', '*']);
    expect(policy.any).toBe(true);
    expect(policy.allows('https://evil.example')).toBe(true);
  });

  it.each(['app.example', 'https://app.example/path', 'localhost:3000', 'https://app.example?x=1', ''])('refuses %j as an origin, saying what one looks like', (entry) => {
    expect(() => createOriginPolicy([entry])).toThrow(/is not an origin: give scheme:\/\/host\[:port\]/);
  });
});
