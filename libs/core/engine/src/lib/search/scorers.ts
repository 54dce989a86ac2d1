/**
 * Combining scorers (Lucene's ConjunctionScorer, DisjunctionSumScorer, DisjunctionMaxScorer,
 * ReqExclScorer, ReqOptSumScorer). Scores are summed in double and rounded to float once, as Lucene.
 */
import { type BulkMatcher, DocIdSetIterator, NO_MORE_DOCS } from './doc-id-set.js';
import { Scorer } from './query.js';
import { TermScorer } from './term-query.js';

/**
 * all iterators must match; scores of `scoring` are summed. Non-scoring clauses that are plain bit sets are
 * tested by membership instead of being advanced, as Lucene's BitSetConjunctionDISI, unless one is cheaper
 * than every other iterator (far cheaper when the others walk arrays): it leads then; non-scoring clauses that can test any doc without iterating (a
 * range on doc values) and cost at least 8× the cheapest clause are tested on the candidates of the others
 * only, as Lucene's IndexOrDocValuesQuery (they never build their doc set). When the lead walks an array of
 * docs and every other clause is such a test, the lead's docs are filtered chunk by chunk in tight loops (the
 * doc-values tests in bulk), not doc by doc through the iterators.
 */
/** the docs of `docs[from..to)` whose bit is set in `words`, into `out` (may be `docs` itself when `from` is 0); their count */
function filterByBits(docs: Uint32Array, from: number, to: number, words: Uint32Array, out: Uint32Array): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const d = docs[i]!;
    if ((words[d >>> 5]! & (1 << (d & 31))) !== 0) out[n++] = d;
  }
  return n;
}

/**
 * the first index at or after `p` whose doc is `d` or more, in docs ascending (`docs[p] < d`, and such an index
 * exists): galloping, then a binary search, so a sparse walk costs the log of the gap, not the gap
 */
function gallop(docs: Uint32Array, p: number, d: number): number {
  let lo = p + 1;
  let step = 1;
  let hi = lo;
  while (hi < docs.length && docs[hi]! < d) {
    lo = hi + 1;
    hi += step;
    step *= 2;
  }
  if (hi > docs.length) hi = docs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (docs[mid]! < d) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export class ConjunctionScorer extends Scorer {
  private readonly lead: DocIdSetIterator;
  private readonly others: DocIdSetIterator[];
  private readonly bits: Uint32Array[];
  private readonly checks: Array<(doc: number) => boolean>;
  private doc = -1;
  /** bulk mode: the lead's docs, the next one to filter, and the filtered docs of the current chunk */
  private readonly leadDocs: Uint32Array | null = null;
  private readonly bulkChecks: BulkMatcher[] = [];
  private pos = 0;
  private buf: Uint32Array | null = null;
  private bufAt = 0;
  private bufLen = 0;
  constructor(
    iterators: DocIdSetIterator[],
    private readonly scoring: Scorer[],
  ) {
    super();
    let cheapest = Infinity;
    for (const it of iterators) cheapest = Math.min(cheapest, it.cost());
    const checks: Array<(doc: number) => boolean> = [];
    const bulkChecks: BulkMatcher[] = [];
    const rest: DocIdSetIterator[] = [];
    let cheapestKept = false;
    for (const it of iterators) {
      const cost = it.cost();
      // (the cheapest clause always iterates)
      const m = cheapestKept || cost !== cheapest ? (cost >= 8 * cheapest && !scoring.includes(it as Scorer) ? it.matcher() : null) : null;
      if (cost === cheapest) cheapestKept = true;
      if (m !== null) {
        checks.push(m);
        const b = it.bulkMatcher();
        if (b !== null) bulkChecks.push(b);
      } else rest.push(it);
    }
    const iters: DocIdSetIterator[] = [];
    const bitSets: DocIdSetIterator[] = [];
    for (const it of rest) {
      if (it.bitSet() !== null && !scoring.includes(it as Scorer)) bitSets.push(it);
      else iters.push(it);
    }
    let minCost = Infinity;
    let minIt: DocIdSetIterator | null = null;
    for (const it of iters) {
      if (it.cost() < minCost) {
        minCost = it.cost();
        minIt = it;
      }
    }
    // a lead that only walks an array of docs computes nothing for the docs it visits
    const arrayLead = minIt !== null && minIt.docArray() !== null;
    const bits: Uint32Array[] = [];
    // a bit set cheaper than every other iterator stays one (it leads): the lead decides which docs the other
    // clauses see at all (a function_score computes its score while iterating). Unless the other lead only
    // walks an array and the bit set is not far cheaper: then the bit set is tested (a membership test costs
    // far less than an advance, and the two do not leap-frog)
    for (const it of bitSets) {
      if (it.cost() < minCost && (!arrayLead || 8 * it.cost() < minCost)) iters.push(it);
      else bits.push(it.bitSet()!.words);
    }
    const sorted = iters.sort((a, b) => a.cost() - b.cost());
    this.lead = sorted[0]!;
    this.others = sorted.slice(1);
    this.bits = bits;
    this.checks = checks;
    if (this.others.length === 0 && checks.length + bits.length > 0) {
      const docs = this.lead.docArray();
      if (docs !== null && (bulkChecks.length === checks.length || bulkChecks.length === 0)) {
        this.leadDocs = docs;
        this.bulkChecks = bulkChecks;
      }
    }
  }
  docID(): number {
    return this.doc;
  }
  private doNext(doc: number): number {
    const others = this.others;
    const bits = this.bits;
    outer: for (;;) {
      if (doc === NO_MORE_DOCS) return (this.doc = NO_MORE_DOCS);
      // (the bit sets first: the other iterators see only docs they hold, as when a bit set leads)
      for (let i = 0; i < bits.length; i++) {
        if ((bits[i]![doc >>> 5]! & (1 << (doc & 31))) === 0) {
          doc = this.lead.nextDoc();
          continue outer;
        }
      }
      for (let i = 0; i < others.length; i++) {
        const o = others[i]!;
        let od = o.docID();
        if (od < doc) od = o.advance(doc);
        if (od > doc) {
          doc = this.lead.advance(od);
          continue outer;
        }
      }
      const checks = this.checks;
      for (let i = 0; i < checks.length; i++) {
        if (!checks[i]!(doc)) {
          doc = this.lead.nextDoc();
          continue outer;
        }
      }
      return (this.doc = doc);
    }
  }
  /** bulk mode: filters the next chunk of the lead's docs into buf; false once they are all done */
  private refill(): boolean {
    const docs = this.leadDocs!;
    const buf = (this.buf ??= new Uint32Array(BULK_CHUNK));
    while (this.pos < docs.length) {
      const from = this.pos;
      const to = Math.min(docs.length, from + BULK_CHUNK);
      this.pos = to;
      let n: number;
      const bits = this.bits;
      if (bits.length === 0) {
        n = this.bulkChecks.length > 0 ? this.bulkChecks[0]!(docs, from, to, buf) : copyInto(docs, from, to, buf);
      } else {
        n = filterByBits(docs, from, to, bits[0]!, buf);
        for (let j = 1; j < bits.length && n > 0; j++) n = filterByBits(buf, 0, n, bits[j]!, buf);
        if (this.bulkChecks.length > 0) n = this.bulkChecks[0]!(buf, 0, n, buf);
      }
      for (let j = 1; j < this.bulkChecks.length; j++) n = this.bulkChecks[j]!(buf, 0, n, buf);
      if (this.bulkChecks.length === 0) {
        const checks = this.checks;
        let m = 0;
        for (let i = 0; i < n; i++) {
          const d = buf[i]!;
          let ok = true;
          for (let j = 0; j < checks.length; j++) {
            if (!checks[j]!(d)) {
              ok = false;
              break;
            }
          }
          if (ok) buf[m++] = d;
        }
        n = m;
      }
      if (n > 0) {
        this.bufAt = 0;
        this.bufLen = n;
        return true;
      }
    }
    this.bufAt = this.bufLen = 0;
    return false;
  }
  /** bulk mode: the doc at buf[bufAt], with the lead positioned on it (for its score) */
  private take(): number {
    const doc = this.buf![this.bufAt++]!;
    const lead = this.lead;
    if (lead.docID() < doc) lead.advance(doc);
    return (this.doc = doc);
  }
  nextDoc(): number {
    if (this.leadDocs !== null) {
      if (this.bufAt < this.bufLen || this.refill()) return this.take();
      return (this.doc = NO_MORE_DOCS);
    }
    return this.doNext(this.lead.nextDoc());
  }
  advance(target: number): number {
    if (this.leadDocs !== null) {
      for (;;) {
        const buf = this.buf;
        while (this.bufAt < this.bufLen && buf![this.bufAt]! < target) this.bufAt++;
        if (this.bufAt < this.bufLen) return this.take();
        // the chunk is done: go on from the first doc of the lead at or after target
        const docs = this.leadDocs;
        let lo = this.pos;
        let hi = docs.length;
        while (lo < hi) {
          const mid = (lo + hi) >>> 1;
          if (docs[mid]! < target) lo = mid + 1;
          else hi = mid;
        }
        this.pos = lo;
        if (!this.refill()) return (this.doc = NO_MORE_DOCS);
      }
    }
    return this.doNext(this.lead.advance(target));
  }
  cost(): number {
    return this.lead.cost();
  }
  /** bulk mode, scoring nothing or the lead's term alone: the filtered chunks are handed out with their scores */
  override canBatch(): boolean {
    if (this.leadDocs === null) return false;
    const s = this.scoring;
    return s.length === 0 || (s.length === 1 && s[0] === this.lead && this.lead instanceof TermScorer);
  }
  override nextBatch(docs: Int32Array, scores: Float64Array, max: number): number {
    const term = this.scoring.length === 1 ? (this.lead as TermScorer) : null;
    // the lead's index of the last doc handed out (its docs ascend: found by walking forward)
    const src = term !== null ? term.docs : null;
    let p = term !== null ? Math.max(0, term.index()) : 0;
    const ones = term !== null ? term.onesTable() : null;
    let n = 0;
    while (n < max) {
      if (this.bufAt >= this.bufLen && !this.refill()) break;
      const buf = this.buf!;
      const end = Math.min(this.bufLen, this.bufAt + (max - n));
      for (let j = this.bufAt; j < end; j++) {
        const d = buf[j]!;
        docs[n] = d;
        if (src !== null) {
          if (src[p]! < d) p = gallop(src, p, d);
          scores[n++] = Math.fround(0 + term!.scoreAt(p, ones, d));
        } else scores[n++] = 0;
      }
      this.bufAt = end;
    }
    if (n === 0) return ((this.doc = NO_MORE_DOCS), 0);
    const last = docs[n - 1]!;
    if (term !== null) term.setIndex(p);
    else if (this.lead.docID() < last) this.lead.advance(last);
    this.doc = last;
    return n;
  }
  score(): number {
    const s = this.scoring;
    let sum = 0;
    for (let i = 0; i < s.length; i++) sum += s[i]!.score();
    return Math.fround(sum);
  }
  /** the scoring clauses' bounds summed as their scores are (so never below the score) */
  override scoreBound(): number {
    return boundSum(this.scoring, -2);
  }
  override minScoreBound(): number {
    return this.scoreBound();
  }
}

/**
 * the bounds of the clauses of `list` positioned on `doc` (every clause when doc is -2), summed in their
 * order and rounded as score() sums and rounds their scores: not below the score, additions being monotonic;
 * Infinity when a bound is negative
 */
function boundSum(list: readonly Scorer[], doc: number): number {
  let sum = 0;
  for (let i = 0; i < list.length; i++) {
    const s = list[i]!;
    if (doc !== -2 && s.docID() !== doc) continue;
    const b = s.scoreBound();
    if (!(b >= 0)) return Infinity;
    sum += b;
  }
  return Math.fround(sum);
}

/** docs filtered per refill of a conjunction in bulk mode */
const BULK_CHUNK = 512;

function copyInto(docs: Uint32Array, from: number, to: number, out: Uint32Array): number {
  out.set(docs.subarray(from, to));
  return to - from;
}

abstract class DisjunctionBase extends Scorer {
  protected doc = -1;
  constructor(protected readonly subs: Scorer[]) {
    super();
  }
  docID(): number {
    return this.doc;
  }
  protected minDoc(): number {
    let m = NO_MORE_DOCS;
    const subs = this.subs;
    for (let i = 0; i < subs.length; i++) {
      const d = subs[i]!.docID();
      if (d < m) m = d;
    }
    return m;
  }
  nextDoc(): number {
    const subs = this.subs;
    const cur = this.doc;
    let m = NO_MORE_DOCS;
    for (let i = 0; i < subs.length; i++) {
      const s = subs[i]!;
      let d = s.docID();
      if (d <= cur) d = s.nextDoc();
      if (d < m) m = d;
    }
    return (this.doc = m);
  }
  advance(target: number): number {
    return this.advanceAll(this.subs, target);
  }
  /** advances the scorers of `list` that are behind target; the smallest of their docs becomes the current doc */
  protected advanceAll(list: readonly Scorer[], target: number): number {
    let m = NO_MORE_DOCS;
    for (let i = 0; i < list.length; i++) {
      const s = list[i]!;
      let d = s.docID();
      if (d < target) d = s.advance(target);
      if (d < m) m = d;
    }
    return (this.doc = m);
  }
  cost(): number {
    let c = 0;
    for (const s of this.subs) c += s.cost();
    return c;
  }
  /** number of sub-scorers positioned on the current doc */
  matchCount(): number {
    let c = 0;
    const subs = this.subs;
    for (let i = 0; i < subs.length; i++) if (subs[i]!.docID() === this.doc) c++;
    return c;
  }
}

/**
 * Sum of the matching clauses' scores. Once told a minimum competitive score it skips as Lucene's MaxScore:
 * the clauses whose summed upper bounds cannot beat that score on their own ("non-essential") no longer
 * lead the iteration; they are only advanced to the candidates of the others when a score is needed.
 */
export class DisjunctionSumScorer extends DisjunctionBase {
  /** clauses that lead the iteration once a minimum competitive score is known (null: all of them) */
  private essential: Scorer[] | null = null;
  /** clauses advanced lazily, when the current doc is scored */
  private lazy: Scorer[] = [];
  /** summed upper bounds of the lazy clauses */
  private lazyBound = 0;
  private minCompetitive = -Infinity;
  override nextDoc(): number {
    return this.essential === null ? super.nextDoc() : this.advance(this.doc + 1);
  }
  override advance(target: number): number {
    const ess = this.essential;
    if (ess === null) return super.advance(target);
    let d = this.advanceAll(ess, target);
    while (d !== NO_MORE_DOCS && !this.competitive(ess, d)) d = this.advanceAll(ess, d + 1);
    return d;
  }
  /** whether the essential clauses' scores plus the lazy clauses' bounds can beat the minimum */
  private competitive(ess: Scorer[], doc: number): boolean {
    let partial = this.lazyBound;
    for (let i = 0; i < ess.length; i++) {
      const s = ess[i]!;
      if (s.docID() === doc) partial += s.score();
    }
    return partial * (1 + 1e-9) > this.minCompetitive;
  }
  score(): number {
    const subs = this.subs;
    const doc = this.doc;
    const lazy = this.lazy;
    for (let i = 0; i < lazy.length; i++) {
      const s = lazy[i]!;
      if (s.docID() < doc) s.advance(doc);
    }
    let sum = 0;
    for (let i = 0; i < subs.length; i++) {
      const s = subs[i]!;
      if (s.docID() === doc) sum += s.score();
    }
    return Math.fround(sum);
  }
  override maxScore(): number {
    let sum = 0;
    for (const s of this.subs) sum += s.maxScore();
    return sum;
  }
  /** batches while every doc is visited (no minimum competitive score) and the clauses are terms */
  override canBatch(): boolean {
    if (this.essential !== null || this.constructor !== DisjunctionSumScorer) return false;
    for (const s of this.subs) if (!(s instanceof TermScorer)) return false;
    return true;
  }
  /** the clauses' postings merged in tight loops; each doc's score sums its clauses' scores in clause order, as score() */
  override nextBatch(docs: Int32Array, scores: Float64Array, max: number): number {
    const subs = this.subs as TermScorer[];
    const ns = subs.length;
    const cur = this.doc;
    // per clause: the index of its next doc not yet returned, and that doc
    const at = new Int32Array(ns);
    const next = new Float64Array(ns);
    const ones: Array<Float64Array | null> = new Array(ns);
    for (let c = 0; c < ns; c++) {
      const t = subs[c]!;
      const i = t.docID() <= cur ? t.index() + 1 : t.index();
      at[c] = i;
      next[c] = i < t.docs.length ? t.docs[i]! : NO_MORE_DOCS;
      ones[c] = t.onesTable();
    }
    let n = 0;
    let last = cur;
    if (ns === 2) {
      // two clauses (a two-word match): a plain merge
      const a = subs[0]!;
      const b = subs[1]!;
      const ad = a.docs;
      const bd = b.docs;
      const ao = ones[0]!;
      const bo = ones[1]!;
      let ai = at[0]!;
      let bi = at[1]!;
      let an = next[0]!;
      let bn = next[1]!;
      while (n < max) {
        let m: number;
        let sum = 0;
        if (an < bn) {
          m = an;
          sum += a.scoreAt(ai, ao, m);
          an = ++ai < ad.length ? ad[ai]! : NO_MORE_DOCS;
        } else if (bn < an) {
          m = bn;
          sum += b.scoreAt(bi, bo, m);
          bn = ++bi < bd.length ? bd[bi]! : NO_MORE_DOCS;
        } else {
          if (an === NO_MORE_DOCS) break;
          m = an;
          sum += a.scoreAt(ai, ao, m);
          sum += b.scoreAt(bi, bo, m);
          an = ++ai < ad.length ? ad[ai]! : NO_MORE_DOCS;
          bn = ++bi < bd.length ? bd[bi]! : NO_MORE_DOCS;
        }
        docs[n] = m;
        scores[n++] = Math.fround(sum);
        last = m;
      }
      at[0] = ai;
      at[1] = bi;
    } else {
      this.merge(subs, at, next, ones, docs, scores, max);
      n = this.merged;
      last = this.mergedLast;
    }
    // the clauses on the last doc stay on it, the others on their next doc (as nextDoc leaves them)
    for (let c = 0; c < ns; c++) {
      const t = subs[c]!;
      const i = at[c]!;
      t.setIndex(n > 0 && i > 0 && t.docs[i - 1] === last ? i - 1 : i);
    }
    this.doc = n > 0 ? last : NO_MORE_DOCS;
    return n;
  }
  private merged = 0;
  private mergedLast = -1;
  /** nextBatch over any number of clauses: the least next doc, then the clauses on it in clause order */
  private merge(subs: TermScorer[], at: Int32Array, next: Float64Array, ones: Array<Float64Array | null>, docs: Int32Array, scores: Float64Array, max: number): void {
    const ns = subs.length;
    let n = 0;
    let last = -1;
    while (n < max) {
      let m = NO_MORE_DOCS;
      for (let c = 0; c < ns; c++) if (next[c]! < m) m = next[c]!;
      if (m === NO_MORE_DOCS) break;
      let sum = 0;
      for (let c = 0; c < ns; c++) {
        if (next[c] !== m) continue;
        const t = subs[c]!;
        const i = at[c]!;
        sum += t.scoreAt(i, ones[c]!, m);
        at[c] = i + 1;
        next[c] = i + 1 < t.docs.length ? t.docs[i + 1]! : NO_MORE_DOCS;
      }
      docs[n] = m;
      scores[n++] = Math.fround(sum);
      last = m;
    }
    this.merged = n;
    this.mergedLast = last;
  }
  /** the bounds of the clauses on the current doc (all of them once some are advanced lazily) */
  override scoreBound(): number {
    return boundSum(this.subs, this.essential === null ? this.doc : -2);
  }
  /** a doc matches one clause at least (Infinity when a clause bounds nothing: so does scoreBound) */
  override minScoreBound(): number {
    let m = Infinity;
    for (const s of this.subs) {
      const b = s.minScoreBound();
      if (!(b >= 0)) return Infinity;
      if (b < m) m = b;
    }
    return m;
  }
  override setMinCompetitiveScore(minScore: number): void {
    // (bounds of subsets add up only when no clause can score below zero)
    if (this.subs.some((s) => !(s.maxScore() >= 0))) return;
    const order = [...this.subs].sort((a, b) => a.maxScore() - b.maxScore());
    // a doc matching only the first n clauses scores at most their summed bounds (with a margin for the
    // double rounding of a sum taken in another order): not above minScore, so they cannot lead
    let bound = 0;
    let n = 0;
    while (n < order.length && (bound + order[n]!.maxScore()) * (1 + 1e-9) <= minScore) bound += order[n++]!.maxScore();
    if (n === 0) return;
    this.minCompetitive = minScore;
    this.lazy = order.slice(0, n);
    this.lazyBound = bound;
    this.essential = order.slice(n);
  }
}

export class DisjunctionMaxScorer extends DisjunctionBase {
  constructor(
    subs: Scorer[],
    private readonly tieBreaker: number,
  ) {
    super(subs);
  }
  score(): number {
    const subs = this.subs;
    const doc = this.doc;
    let max = 0;
    let sum = 0;
    for (let i = 0; i < subs.length; i++) {
      const s = subs[i]!;
      if (s.docID() === doc) {
        const sc = s.score();
        sum += sc;
        if (sc > max) max = sc;
      }
    }
    return Math.fround(max + (sum - max) * this.tieBreaker);
  }
}

/** a disjunction where at least `msm` sub-scorers must match */
export class MinShouldMatchScorer extends DisjunctionSumScorer {
  constructor(
    subs: Scorer[],
    private readonly msm: number,
  ) {
    super(subs);
  }
  override nextDoc(): number {
    let d = super.nextDoc();
    while (d !== NO_MORE_DOCS && this.matchCount() < this.msm) d = super.nextDoc();
    return d;
  }
  override advance(target: number): number {
    let d = super.advance(target);
    while (d !== NO_MORE_DOCS && this.matchCount() < this.msm) d = super.nextDoc();
    return d;
  }
  override setMinCompetitiveScore(): void {
    // matchCount needs every clause positioned: no skipping
  }
}

export class ReqExclScorer extends Scorer {
  constructor(
    private readonly req: Scorer,
    private readonly excl: DocIdSetIterator,
  ) {
    super();
  }
  docID(): number {
    return this.req.docID();
  }
  private skip(d: number): number {
    const excl = this.excl;
    while (d !== NO_MORE_DOCS) {
      let e = excl.docID();
      if (e < d) e = excl.advance(d);
      if (e !== d) return d;
      d = this.req.nextDoc();
    }
    return d;
  }
  nextDoc(): number {
    return this.skip(this.req.nextDoc());
  }
  advance(target: number): number {
    return this.skip(this.req.advance(target));
  }
  cost(): number {
    return this.req.cost();
  }
  score(): number {
    return this.req.score();
  }
  override scoreBound(): number {
    return this.req.scoreBound();
  }
  override minScoreBound(): number {
    return this.req.minScoreBound();
  }
}

export class ReqOptSumScorer extends Scorer {
  constructor(
    private readonly req: Scorer,
    private readonly opt: Scorer,
  ) {
    super();
  }
  docID(): number {
    return this.req.docID();
  }
  nextDoc(): number {
    return this.req.nextDoc();
  }
  advance(target: number): number {
    return this.req.advance(target);
  }
  cost(): number {
    return this.req.cost();
  }
  score(): number {
    const doc = this.req.docID();
    let s = this.req.score();
    let od = this.opt.docID();
    if (od < doc) od = this.opt.advance(doc);
    if (od === doc) s += this.opt.score();
    return Math.fround(s);
  }
}

/** a scorer with a fixed score computed by a function of the inner scorer */
export class MappedScoreScorer extends Scorer {
  constructor(
    private readonly inner: Scorer,
    private readonly fn: (s: Scorer) => number,
  ) {
    super();
  }
  docID(): number {
    return this.inner.docID();
  }
  nextDoc(): number {
    return this.inner.nextDoc();
  }
  advance(target: number): number {
    return this.inner.advance(target);
  }
  cost(): number {
    return this.inner.cost();
  }
  score(): number {
    return this.fn(this.inner);
  }
}
