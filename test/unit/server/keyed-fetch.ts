/**
 * Browser mode answers only requests that carry its key (native/server/auth.ts). Tests that talk to a
 * server they started themselves send it as `Authorization: Bearer <key>` through this fetch.
 */
export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

/** fetch with the server's key added (an Authorization header the caller set wins). */
export function keyedFetch(server: { token: string }): FetchLike {
  return (input, init = {}) => {
    const headers = new Headers(init.headers);
    if (!headers.has('authorization')) headers.set('Authorization', `Bearer ${server.token}`);
    return fetch(input, { ...init, headers });
  };
}
