/**
 * The loop of a crash child (a `testing/*-child.ts`): the ops of a deterministic sequence applied to a shard
 * in batches of 40 (an index of a parsed doc, or a delete), `ACK <ops>` printed once each batch is fsynced
 * (request durability), forever: the parent kill -9's the process.
 */
import type { ParsedDocument } from '../../mapper/parsed-document.js';
import type { IndexShardImpl } from '../index-shard.js';

export async function runAckedOps(shard: IndexShardImpl, op: (n: number) => { id: string; doc: ParsedDocument | null }): Promise<never> {
  let n = 0;
  for (;;) {
    for (let i = 0; i < 40; i++) {
      const o = op(n++);
      if (o.doc) shard.indexDoc({ id: o.id, opType: 'index', doc: o.doc });
      else shard.deleteDoc({ id: o.id });
    }
    await shard.sync();
    process.stdout.write(`ACK ${n}\n`);
    await new Promise<void>((r) => setImmediate(r));
  }
}
