/**
 * Child process for the one-writer property test: on each message {round, dir, at} it waits until the
 * clock reaches `at` (so all children try at the same moment), tries to take the library's lock, and,
 * when it got it, marks itself inside (a file created exclusively: a second holder finds it there),
 * holds a moment, leaves and releases. It answers {round, won, overlap, code}.
 * Usage: node --import tsx issue37-lock-child.ts (driven over IPC by issue37-lock.test.ts)
 */
import fs from 'node:fs';
import path from 'node:path';
import { LibraryLock } from '../../native/store/lock.js';

interface Go {
  round: number;
  dir: string;
  at: number;
  holdMs: number;
}

function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

process.on('message', (msg: Go | 'exit') => {
  if (msg === 'exit') process.exit(0);
  while (Date.now() < msg.at) {
    // spin: start together
  }
  let won = false;
  let overlap = false;
  let code: string | null = null;
  try {
    const lock = LibraryLock.acquire(msg.dir);
    won = true;
    const inside = path.join(msg.dir, 'inside');
    try {
      fs.writeFileSync(inside, String(process.pid), { flag: 'wx' });
      pause(msg.holdMs);
      fs.unlinkSync(inside);
    } catch {
      overlap = true; // another holder is inside
    }
    lock.release();
  } catch (err) {
    code = (err as { code?: string }).code ?? String(err);
  }
  process.send?.({ round: msg.round, won, overlap, code });
});
process.send?.({ ready: true });
