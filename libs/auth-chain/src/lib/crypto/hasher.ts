/**
 * Salted password/secret hashes in Elasticsearch's formats, so hashes move between the two:
 * - bcrypt: `$2a$<cost>$<salt+hash>` (bcryptjs);
 * - PBKDF2: `{PBKDF2}<iterations>$<base64 salt>$<base64 hash>` (HMAC-SHA512, 32-byte salt, 256-bit key);
 * - PBKDF2_STRETCH: `{PBKDF2_STRETCH}...` the same over the hex SHA-512 of the secret.
 * Verification picks the algorithm from the hash itself and compares in constant time.
 */
import { createHash, pbkdf2, randomBytes, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import * as bcrypt from 'bcryptjs';

const pbkdf2Async = promisify(pbkdf2);
const PBKDF2_KEY_BYTES = 32;
const PBKDF2_SALT_BYTES = 32;

export interface Hasher {
  /** the algorithm name (`bcrypt`, `pbkdf2_10000`, ...) */
  readonly name: string;
  hash(secret: string): Promise<string>;
}

function parseAlgorithm(name: string): { kind: 'bcrypt'; cost: number } | { kind: 'pbkdf2'; stretch: boolean; iterations: number } {
  const n = name.toLowerCase();
  const b = /^bcrypt(\d+)?$/.exec(n);
  if (b) return { kind: 'bcrypt', cost: b[1] ? Number(b[1]) : 10 };
  const p = /^pbkdf2(_stretch)?(?:_(\d+))?$/.exec(n);
  if (p) return { kind: 'pbkdf2', stretch: p[1] !== undefined, iterations: p[2] ? Number(p[2]) : 10000 };
  throw new Error(`unknown hashing algorithm [${name}]`);
}

function stretch(secret: string): string {
  return createHash('sha512').update(secret, 'utf8').digest('hex');
}

export function hasher(name: string): Hasher {
  const alg = parseAlgorithm(name);
  return {
    name,
    async hash(secret: string): Promise<string> {
      if (alg.kind === 'bcrypt') {
        const salt = (await bcrypt.genSalt(alg.cost)).replace(/^\$2b\$/, '$2a$');
        return bcrypt.hash(secret, salt);
      }
      const salt = randomBytes(PBKDF2_SALT_BYTES);
      const input = alg.stretch ? stretch(secret) : secret;
      const key = await pbkdf2Async(input, salt, alg.iterations, PBKDF2_KEY_BYTES, 'sha512');
      const prefix = alg.stretch ? '{PBKDF2_STRETCH}' : '{PBKDF2}';
      return `${prefix}${alg.iterations}$${salt.toString('base64')}$${key.toString('base64')}`;
    },
  };
}

/** true when `hash` names an algorithm this service verifies */
export function isKnownHash(hash: string): boolean {
  return /^\$2[aby]\$\d\d\$/.test(hash) || /^\{PBKDF2(_STRETCH)?\}\d+\$/.test(hash);
}

/** Checks a secret against a stored hash of any supported format; false for an unknown format. */
export async function verifyHash(secret: string, hash: string): Promise<boolean> {
  if (/^\$2[aby]\$\d\d\$/.test(hash)) {
    try {
      return await bcrypt.compare(secret, hash);
    } catch {
      return false;
    }
  }
  const m = /^\{(PBKDF2|PBKDF2_STRETCH)\}(\d+)\$([^$]+)\$([^$]+)$/.exec(hash);
  if (!m) return false;
  const iterations = Number(m[2]);
  if (!Number.isSafeInteger(iterations) || iterations < 1 || iterations > 10_000_000) return false;
  const salt = Buffer.from(m[3], 'base64');
  const expected = Buffer.from(m[4], 'base64');
  if (expected.length === 0) return false;
  const input = m[1] === 'PBKDF2_STRETCH' ? stretch(secret) : secret;
  const actual = await pbkdf2Async(input, salt, iterations, expected.length, 'sha512');
  return timingSafeEqual(actual, expected);
}

/** a constant-time comparison of two strings (different lengths compare unequal without leaking where) */
export function constantTimeEquals(a: string, b: string): boolean {
  const ba = Buffer.from(a, 'utf8');
  const bb = Buffer.from(b, 'utf8');
  if (ba.length !== bb.length) {
    timingSafeEqual(ba, ba);
    return false;
  }
  return timingSafeEqual(ba, bb);
}

/** a random secret of `bytes` bytes, base64url (API keys, token secrets) */
export function randomSecret(bytes = 16): string {
  return randomBytes(bytes).toString('base64url');
}

const PASSWORD_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-*+=';

/** a generated password like Elasticsearch's auto-configuration: 20 characters */
export function generatePassword(length = 20): string {
  const out: string[] = [];
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      // rejection sampling keeps the distribution uniform
      if (b < 256 - (256 % PASSWORD_CHARS.length)) out.push(PASSWORD_CHARS[b % PASSWORD_CHARS.length]);
      if (out.length === length) break;
    }
  }
  return out.join('');
}
