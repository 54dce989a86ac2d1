/**
 * Test support for the durability of merged segments whose fields depend on the live docs alone: a
 * deterministic op sequence. Ops from 300 on write 500 ids over and over (each id again 500 ops later); of the
 * first 300 ops, the even ones write those ids too, with fields no later doc has (`gone`, `gone_n`) and a
 * number `n` missing or multi-valued, and the odd ones write ids of their own, never written again (`keep<n>`,
 * with one `n`). So the early segments keep live docs beside deleted docs that alone had those fields, and a
 * merge of them writes neither the fields nor a counts column for `n`. Ops from 600 on bring a field of their
 * own (`late`); keys come in varying order.
 */
export interface MergeFieldsOp {
  id: string;
  /** null: a delete */
  source: Record<string, unknown> | null;
}

export function mergeFieldsOp(n: number): MergeFieldsOp {
  const early = n < 300;
  const keep = early && n % 2 === 1;
  const id = keep ? `keep${n}` : `d${(n * 7) % 500}`;
  if (!keep && n % 13 === 5) return { id, source: null };
  const e: Array<[string, unknown]> = [['msg', `w${n % 7} common w${n % 11}`]];
  if (!early || keep) e.push(['n', n]);
  else if (n % 4 === 2) e.push(['n', [n + 1, n]]);
  if (early && !keep) e.push(['gone', `old ${n % 5}`], ['gone_n', n * 2]);
  if (n >= 600) e.push(['late', `new ${n % 3}`]);
  if (n % 3 === 1) e.reverse();
  else if (n % 3 === 2) e.push(e.shift()!);
  return { id, source: Object.fromEntries(e) };
}

/** the source of every id after `ops` ops (null: deleted or never written) */
export function mergeFieldsModel(ops: number): Map<string, Record<string, unknown> | null> {
  const m = new Map<string, Record<string, unknown> | null>();
  for (let i = 0; i < 500; i++) m.set(`d${i}`, null);
  for (let n = 0; n < ops; n++) {
    const op = mergeFieldsOp(n);
    m.set(op.id, op.source);
  }
  return m;
}
