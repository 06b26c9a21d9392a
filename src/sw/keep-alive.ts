/**
 * Keeps the service worker alive while a streamed response is still being read. Once
 * `respondWith` has its Response the fetch event counts as handled, and a worker with no pending
 * events may be stopped as idle, which would cut a slow generation (seconds per token on a CPU).
 * Extending the event until the body ends keeps it running. (A worker replaced by an update is
 * kept alive by Chromium while its responses stream; the browser test covers that case.)
 * @module
 */

export function keepAliveWhileStreaming(response: Response, waitUntil: (promise: Promise<unknown>) => void): Response {
  if (!response.body || !response.headers.get('content-type')?.startsWith('text/event-stream')) return response;
  let finish!: () => void;
  waitUntil(new Promise<void>((resolve) => (finish = resolve)));
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            controller.close();
            finish();
          } else controller.enqueue(value);
        } catch (error) {
          controller.error(error);
          finish();
        }
      },
      cancel(reason) {
        finish();
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}
