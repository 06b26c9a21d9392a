/** The playground page. @module */
import { startInference } from '../client/index.ts';

const status = document.querySelector<HTMLElement>('#status')!;
startInference({ onProgress: (p) => (status.textContent = `${p.model}: ${p.status}`) })
  .then(() => (status.textContent = 'Ready: the API answers at /v1.'))
  .catch((error: unknown) => (status.textContent = `Could not start: ${error instanceof Error ? error.message : String(error)}`));
