import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../core/errors.ts';
import { allowsSamplingParameters, ANTHROPIC_VERSIONS, hasVersionHeader, parseVersion, versionHeader } from './version.ts';

function failure(headers: HeadersInit): GatewayError {
  try {
    parseVersion(new Headers(headers));
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).code).toBe('invalid_request');
    expect((error as GatewayError).status).toBe(400);
    return error as GatewayError;
  }
  throw new Error('expected parseVersion to reject');
}

describe('parseVersion', () => {
  it.each(ANTHROPIC_VERSIONS)('accepts anthropic-version %s', (version) => {
    expect(parseVersion(new Headers({ 'anthropic-version': version }))).toBe(version);
  });

  it('accepts at least the two versions the SDKs send', () => {
    expect(ANTHROPIC_VERSIONS).toContain('2023-06-01');
    expect(ANTHROPIC_VERSIONS).toContain('2026-10-21');
  });

  it('accepts the spec header name vendor-version', () => {
    expect(parseVersion(new Headers({ 'vendor-version': '2023-06-01' }))).toBe('2023-06-01');
  });

  it('reads header names case-insensitively', () => {
    expect(parseVersion(new Headers({ 'Anthropic-Version': '2026-10-21' }))).toBe('2026-10-21');
  });

  it('prefers anthropic-version when both are sent', () => {
    expect(parseVersion(new Headers({ 'anthropic-version': '2026-10-21', 'vendor-version': '2023-06-01' }))).toBe('2026-10-21');
  });

  it('requires a version header, naming it', () => {
    expect(failure({}).message).toContain('anthropic-version: header is required');
  });

  it.each(['1999-01-01', '2023-10-01', 'latest', '', '2023-06-01, 2023-06-01'])('rejects the value %j, quoting it', (value) => {
    expect(failure({ 'anthropic-version': value }).message).toContain(`"${value}" is not a valid version`);
  });
});

describe('hasVersionHeader / versionHeader', () => {
  it('sees either header name, even with an empty value', () => {
    expect(hasVersionHeader(new Headers({ 'anthropic-version': 'x' }))).toBe(true);
    expect(hasVersionHeader(new Headers({ 'vendor-version': '' }))).toBe(true);
    expect(hasVersionHeader(new Headers({ authorization: 'Bearer k', 'x-api-key': 'k' }))).toBe(false);
    expect(versionHeader(new Headers({ 'vendor-version': '2023-06-01' }))).toBe('2023-06-01');
  });
});

describe('allowsSamplingParameters', () => {
  it('allows them before 2026-10-21 only', () => {
    expect(allowsSamplingParameters('2023-01-01')).toBe(true);
    expect(allowsSamplingParameters('2023-06-01')).toBe(true);
    expect(allowsSamplingParameters('2026-10-21')).toBe(false);
  });
});
