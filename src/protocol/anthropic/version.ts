/**
 * The Anthropic version header. The SDKs send `anthropic-version`; the service spec calls it
 * `vendor-version`. Either is accepted; one is required on `/messages`.
 * @see https://docs.anthropic.com/en/api/versioning
 * @module
 */
import { GatewayError } from '../../core/errors.ts';

/** Versions the real API accepts. 2026-10-21 removed temperature, top_p and top_k. */
export const ANTHROPIC_VERSIONS = ['2023-01-01', '2023-06-01', '2026-10-21'] as const;
export type AnthropicVersion = (typeof ANTHROPIC_VERSIONS)[number];

export function versionHeader(headers: Headers): string | null {
  return headers.get('anthropic-version') ?? headers.get('vendor-version');
}

/** True when a request names an Anthropic version at all: the only reliable flavour signal on shared paths. */
export function hasVersionHeader(headers: Headers): boolean {
  return versionHeader(headers) !== null;
}

export function parseVersion(headers: Headers): AnthropicVersion {
  const value = versionHeader(headers);
  if (value === null) {
    throw new GatewayError('invalid_request', 'anthropic-version: header is required (the vendor-version header is accepted too).');
  }
  const version = ANTHROPIC_VERSIONS.find((v) => v === value.trim());
  if (!version) {
    throw new GatewayError('invalid_request', `anthropic-version: "${value}" is not a valid version. Valid versions: ${ANTHROPIC_VERSIONS.join(', ')}.`);
  }
  return version;
}

/** Sampling parameters exist only before 2026-10-21. */
export function allowsSamplingParameters(version: AnthropicVersion): boolean {
  return version < '2026-10-21';
}
