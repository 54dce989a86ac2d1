/**
 * Small JSON state files (a shard's commit point, the cluster metadata) with a checksum footer: the JSON
 * text, a newline, then `#crc32:<8 hex digits>` over the JSON text's UTF-8 bytes. A file without the footer
 * (written before footers existed) is read as plain JSON; a footer that does not match is a
 * CorruptIndexException, never a silently accepted state.
 */
import { crc32 } from './crc32.js';
import { CorruptIndexException } from './segment-codec.js';

const FOOTER = '\n#crc32:';

export function encodeStateFile(value: unknown): Buffer {
  const body = Buffer.from(JSON.stringify(value), 'utf8');
  const footer = Buffer.from(`${FOOTER}${crc32(body).toString(16).padStart(8, '0')}\n`, 'latin1');
  return Buffer.concat([body, footer]);
}

export function decodeStateFile<T>(buf: Uint8Array, what: string): T {
  const text = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  const at = text.lastIndexOf(FOOTER);
  let body: Buffer = text;
  if (at >= 0 && /^\n#crc32:[0-9a-f]{8}\n?$/.test(text.subarray(at).toString('latin1'))) {
    body = text.subarray(0, at);
    const stored = parseInt(text.subarray(at + FOOTER.length, at + FOOTER.length + 8).toString('latin1'), 16);
    if (crc32(body) !== stored) throw new CorruptIndexException(`${what} checksum mismatch`);
  }
  try {
    return JSON.parse(body.toString('utf8')) as T;
  } catch {
    throw new CorruptIndexException(`${what} is not readable JSON`);
  }
}
