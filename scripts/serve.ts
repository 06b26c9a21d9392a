/**
 * `npm start`'s server: the built playground through `vite preview`, on `PORT` (default 5173). A
 * port already taken is said plainly, with the command that picks another, instead of vite's
 * stack trace or a silent move to the next port (the service worker and the cached models belong
 * to one origin, port included, so a moving port would look like a fresh install).
 */
import { createServer } from 'node:net';
import { preview } from 'vite';

const port = Number(process.env.PORT ?? 5173);
if (!Number.isInteger(port) || port < 1 || port > 65535) {
  console.error(`PORT must be a port number (1-65535), not "${process.env.PORT}".`);
  process.exit(2);
}

const free = await new Promise<boolean>((resolve) => {
  const probe = createServer();
  probe.once('error', () => resolve(false));
  probe.listen(port, () => probe.close(() => resolve(true)));
});
if (!free) {
  console.error(`Port ${port} is already in use (another \`npm start\`?). Start on another one with: PORT=${port + 1} npm start`);
  process.exit(1);
}

const server = await preview({ preview: { port, strictPort: true } });
server.printUrls();
