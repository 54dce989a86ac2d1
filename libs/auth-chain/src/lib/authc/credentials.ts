/** Parsing of the Authorization header schemes: Basic, Bearer, ApiKey. */
import { invalidBasicHeader } from './auth-errors.js';

export type Credential =
  | { scheme: 'basic'; username: string; password: string; header: string }
  | { scheme: 'bearer'; token: string; header: string }
  | { scheme: 'apikey'; encoded: string; header: string };

/** the credential of the Authorization header, or undefined when there is none this service reads */
export function readCredential(header: string | undefined): Credential | undefined {
  if (!header) return undefined;
  const sp = header.indexOf(' ');
  const scheme = (sp < 0 ? header : header.slice(0, sp)).toLowerCase();
  const value = sp < 0 ? '' : header.slice(sp + 1).trim();
  if (scheme === 'basic') {
    if (!value) throw invalidBasicHeader();
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw invalidBasicHeader();
    return { scheme: 'basic', username: decoded.slice(0, colon), password: decoded.slice(colon + 1), header };
  }
  if (scheme === 'bearer') return value ? { scheme: 'bearer', token: value, header } : undefined;
  if (scheme === 'apikey') return value ? { scheme: 'apikey', encoded: value, header } : undefined;
  return undefined;
}
