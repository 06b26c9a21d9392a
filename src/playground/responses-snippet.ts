/**
 * The openai client's lines that repeat a `/responses` call: `client.responses.stream` with its
 * named events when the call streamed, `client.responses.create` when it did not.
 * @module
 */

type Json = Record<string, unknown>;

/** `literal` writes a JS object literal of the body (the snippets' shared formatter). */
export function responsesClientLines(body: Json, literal: (value: unknown) => string): string[] {
  const { stream, ...params } = body;
  const note = params.text ? ['// The reply is JSON that matches the schema: JSON.parse(response.output_text).'] : [];
  if (stream === true) {
    return [
      ...note,
      `const stream = client.responses.stream(${literal(params)});`,
      "stream.on('response.output_text.delta', (event) => console.log(event.delta));",
      ...(params.tools ? ["stream.on('response.function_call_arguments.delta', (event) => console.log(event.delta));"] : []),
      'const response = await stream.finalResponse();',
      'console.log(response.status, response.output, response.usage);',
    ];
  }
  return [
    ...note,
    `const response = await client.responses.create(${literal(params)});`,
    'console.log(response.status, response.output_text, response.usage);',
    ...(params.tools ? ["console.log(response.output.filter((item) => item.type === 'function_call'));"] : []),
  ];
}
