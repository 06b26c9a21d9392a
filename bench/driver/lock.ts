/**
 * One run at a time: a second one would rebuild the pages under the first, and two runs sharing
 * two cores measure each other.
 * @module
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { LOCK } from './paths.ts';

export function takeLock(): void {
  mkdirSync(dirname(LOCK), { recursive: true });
  try {
    writeFileSync(LOCK, String(process.pid), { flag: 'wx' });
  } catch {
    const holder = Number(readFileSync(LOCK, 'utf8'));
    let alive = false;
    try {
      process.kill(holder, 0);
      alive = true;
    } catch (error) {
      alive = (error as NodeJS.ErrnoException).code === 'EPERM';
    }
    if (alive && holder !== process.pid) throw new Error(`bench: another run is in progress (pid ${holder}); two at once would measure each other. Wait for it, or remove ${LOCK} if it is stale.`);
    writeFileSync(LOCK, String(process.pid));
  }
  process.on('exit', () => {
    try {
      if (readFileSync(LOCK, 'utf8') === String(process.pid)) rmSync(LOCK);
    } catch {
      // Already gone.
    }
  });
}
