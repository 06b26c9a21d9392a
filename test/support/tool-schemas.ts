/**
 * The tools the conformance suites call, as JSON schemas. Bounded: a random-weight model never
 * closes an unbounded string or number on its own, so every value has a limit the grammar enforces.
 */
export const WEATHER = {
  type: 'object',
  properties: {
    city: { type: 'string', maxLength: 12 },
    unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
    days: { type: 'integer', minimum: 1, maximum: 7 },
  },
  required: ['city', 'unit', 'days'],
  additionalProperties: false,
};

export const TIME = {
  type: 'object',
  properties: { zone: { type: 'string', enum: ['UTC', 'CET', 'PST'] }, seconds: { type: 'boolean' } },
  required: ['zone', 'seconds'],
  additionalProperties: false,
};

/** Each tool's schema by its name, to validate the calls the model makes. */
export const SCHEMAS: Record<string, object> = { get_weather: WEATHER, get_time: TIME };
