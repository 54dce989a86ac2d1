/**
 * Time-based 20-char base64url ids like Elasticsearch's TimeBasedUUIDGenerator: 15 bytes made of a
 * sequence number, the timestamp in millis and a per-process random node id.
 */
import { randomBytes } from 'node:crypto';
import type { IdGenerator } from '@strata/core-common';

export class TimeBasedIdGenerator implements IdGenerator {
  private sequence = randomBytes(3).readUIntBE(0, 3);
  private lastTimestamp = 0;
  private readonly node = randomBytes(6);

  next(): string {
    const seq = (this.sequence = (this.sequence + 1) & 0xffffff);
    let ts = Math.max(this.lastTimestamp, Date.now());
    if (seq === 0) ts++;
    this.lastTimestamp = ts;
    const b = Buffer.allocUnsafe(15);
    // low-order sequence bytes first spread the ids; then timestamp (big endian), node id, high sequence byte
    b[0] = seq & 0xff;
    b[1] = (seq >>> 16) & 0xff;
    b[2] = Math.floor(ts / 2 ** 40) & 0xff;
    b[3] = Math.floor(ts / 2 ** 32) & 0xff;
    b[4] = (ts >>> 24) & 0xff;
    b[5] = (ts >>> 16) & 0xff;
    b[6] = (ts >>> 8) & 0xff;
    this.node.copy(b, 7, 0, 6);
    b[13] = ts & 0xff;
    b[14] = (seq >>> 8) & 0xff;
    return b.toString('base64url');
  }
}
