/**
 * Browser mode answers only whoever started it. The server holds a random key (256 bits); `npm start`
 * prints the address with it (`http://127.0.0.1:<port>/?token=<key>`). Opening that address swaps the
 * key for an HttpOnly, SameSite=Strict cookie and redirects to the same page without it, so the key
 * leaves the address bar and the page's own requests (static files, API calls, streams) carry the
 * cookie. A program of the same user (tests, scripts) may send `Authorization: Bearer <key>` instead.
 * Every request is checked, with a constant-time comparison; any other local user (who cannot read
 * the starter's terminal) gets 401 and is told to open the address printed by `npm start`.
 */
import crypto from 'node:crypto';
import type http from 'node:http';

/** Bytes of randomness in a generated key (hex-encoded: 64 characters). */
const TOKEN_BYTES = 32;
/** A key given from outside (tests, MANUALDESK_TOKEN) must be at least this long: 128 bits of hex. */
export const MIN_TOKEN_LENGTH = 32;

export function newToken(): string {
  return crypto.randomBytes(TOKEN_BYTES).toString('hex');
}

/** Refuses a key that is too short or holds characters a cookie or URL would mangle. */
export function checkToken(token: string): string {
  if (token.length < MIN_TOKEN_LENGTH || !/^[A-Za-z0-9_-]+$/.test(token)) {
    throw new Error(
      `The browser-mode key must be at least ${MIN_TOKEN_LENGTH} letters, digits, "-" or "_" (128 bits or more); leave it unset to get a random one.`,
    );
  }
  return token;
}

/** Cookies are shared by every port of 127.0.0.1: the name carries the port, so two servers do not clash. */
export function cookieName(port: number): string {
  return `manualdesk_key_${port}`;
}

export function tokenCookie(port: number, token: string): string {
  return `${cookieName(port)}=${token}; Path=/; HttpOnly; SameSite=Strict`;
}

export const UNAUTHORIZED_MESSAGE =
  'This ManualDesk page is open only to the person who started it. Open the address that "npm start" printed (it ends in ?token=…), or run "npm start" again.';

/** True when the two keys are equal; the time taken does not depend on where they differ. */
export function sameToken(given: string, expected: string): boolean {
  const a = crypto.createHash('sha256').update(given).digest();
  const b = crypto.createHash('sha256').update(expected).digest();
  return crypto.timingSafeEqual(a, b);
}

/** The key a request carries: its bearer header, else this server's cookie; null when none. */
export function presentedToken(req: http.IncomingMessage, port: number): string | null {
  const auth = req.headers.authorization;
  if (auth !== undefined) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    return m ? m[1]! : null;
  }
  const name = cookieName(port);
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}
