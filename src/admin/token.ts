/**
 * @module The admin API's bearer token (RFC 6750 §2.1), compared in constant time so that the
 * time an answer takes says nothing about how much of a guess was right.
 */
import { ENCODER } from "../keys/identify.ts";

const BEARER = /^Bearer +(\S+) *$/i;

/**
 * The token of an `Authorization: Bearer <token>` header, or undefined.
 *
 * @example
 * bearerToken("Bearer abc"); // "abc"
 * bearerToken("Basic abc"); // undefined
 */
export function bearerToken(authorization: string | undefined): string | undefined {
  return authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];
}

/**
 * Whether `given` equals `expected`, in time that depends only on `expected`'s length: every byte
 * of `expected` is compared, and a length difference is folded into the result, not returned early.
 *
 * @example
 * sameToken("guess", adminToken); // false, after as long as a right guess would take
 */
export function sameToken(given: string, expected: string): boolean {
  const a = ENCODER.encode(given);
  const b = ENCODER.encode(expected);
  let difference = a.length ^ b.length;
  for (let i = 0; i < b.length; i++) difference |= (a[i % Math.max(a.length, 1)] ?? 0) ^ b[i]!;
  return difference === 0;
}
