/**
 * Small readers for request fields: each returns a typed value or throws a 400 that names the
 * field. `null` counts as absent, as in the real APIs. Nothing here mutates its input.
 * @module
 */
import { GatewayError } from './errors.ts';

type Body = Readonly<Record<string, unknown>>;

export function invalid(param: string, message: string): GatewayError {
  return new GatewayError('invalid_request', message, { param });
}

export function describe(value: unknown): string {
  if (value === null) return 'null';
  // A missing field: "got a undefined undefined" would read as a bug.
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return value.length > 40 ? 'a string' : `'${value}'`;
  if (typeof value === 'object') return 'an object';
  return `${typeof value === 'number' ? '' : `a ${typeof value} `}${String(value)}`.trim();
}

export function requiredString(body: Body, key: string, param = key): string {
  const value = body[key];
  if (value === undefined || value === null) throw invalid(param, `Missing required parameter: '${param}'.`);
  if (typeof value !== 'string') throw invalid(param, `Invalid type for '${param}': expected a string, but got ${describe(value)}.`);
  if (value.length === 0) throw invalid(param, `Invalid '${param}': empty string. Expected a string with minimum length 1.`);
  return value;
}

export function optionalBoolean(body: Body, key: string, param = key): boolean | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') throw invalid(param, `Invalid type for '${param}': expected a boolean, but got ${describe(value)}.`);
  return value;
}

export interface NumberRule {
  readonly min?: number;
  readonly max?: number;
  readonly integer?: boolean;
}

export function optionalNumber(body: Body, key: string, rule: NumberRule, param = key): number | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  return checkNumber(value, rule, param);
}

export function checkNumber(value: unknown, { min, max, integer }: NumberRule, param: string): number {
  const kind = integer ? 'an integer' : 'a number';
  if (typeof value !== 'number' || !Number.isFinite(value) || (integer && !Number.isInteger(value))) {
    throw invalid(param, `Invalid type for '${param}': expected ${kind}, but got ${describe(value)}.`);
  }
  if (min !== undefined && value < min) {
    throw invalid(param, `Invalid '${param}': ${value} is below the minimum of ${min}.`);
  }
  if (max !== undefined && value > max) {
    throw invalid(param, `Invalid '${param}': ${value} is above the maximum of ${max}.`);
  }
  return value;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
