import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Principal } from '@strata/core-common';
import { ManualClock } from '@strata/core-testing';
import { AsyncSearchStore, ownerOf } from './async-store.js';

const user = (username: string, realm = 'native'): Principal => ({
  username,
  roles: [],
  realm: { name: realm, type: realm },
  authenticationType: 'realm',
});

describe('AsyncSearchStore', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  function store(clock = new ManualClock()): { s: AsyncSearchStore; dir: string; clock: ManualClock } {
    const dir = mkdtempSync(join(tmpdir(), 'eql-async-'));
    dirs.push(dir);
    return { s: new AsyncSearchStore(clock, dir), dir, clock };
  }

  it('a stored search is visible only to the user who started it', () => {
    const { s, clock } = store();
    const id = s.newId();
    s.create({ id, owner: ownerOf(user('alice')), startTime: clock.now(), expirationTime: clock.now() + 60_000, running: false, partial: false, response: {} });
    expect(s.get(id, user('alice')).entry.id).toBe(id);
    expect(() => s.get(id, user('bob'))).toThrow(expect.objectContaining({ type: 'resource_not_found_exception', status: 404 }));
    expect(() => s.get(id, user('alice', 'file'))).toThrow(expect.objectContaining({ type: 'resource_not_found_exception' }));
    expect(() => s.get(id, undefined)).toThrow(expect.objectContaining({ type: 'resource_not_found_exception' }));
    expect(() => s.delete(id, user('bob'))).toThrow(expect.objectContaining({ status: 404 }));
    s.delete(id, user('alice'));
    expect(() => s.get(id, user('alice'))).toThrow(expect.objectContaining({ status: 404 }));
  });

  it('keep_alive passing deletes a running search and cancels it', () => {
    const { s, clock } = store();
    const id = s.newId();
    const ctl = new AbortController();
    s.create({ id, startTime: clock.now(), expirationTime: clock.now() + 60_000, running: true, partial: true }, ctl);
    clock.advance(59_999);
    expect(s.reap()).toBe(0);
    clock.advance(1);
    expect(s.reap()).toBe(1);
    expect(ctl.signal.aborted).toBe(true);
    expect(() => s.get(id, undefined)).toThrow(expect.objectContaining({ status: 404 }));
  });

  it('stored searches are reloaded after a restart; one that was running ends as a failure', () => {
    const { s, dir, clock } = store();
    const done = s.newId();
    const running = s.newId();
    s.create({ id: done, startTime: 1, expirationTime: clock.now() + 60_000, running: false, partial: false, response: { hits: { total: { value: 1 } } }, completionStatus: 200 });
    s.create({ id: running, startTime: 1, expirationTime: clock.now() + 60_000, running: true, partial: true });
    const reopened = new AsyncSearchStore(clock, dir);
    expect(reopened.get(done, undefined).entry.response).toEqual({ hits: { total: { value: 1 } } });
    const r = reopened.get(running, undefined).entry;
    expect(r.running).toBe(false);
    expect(r.completionStatus).toBe(500);
    expect(() => reopened.get('short', undefined)).toThrow(expect.objectContaining({ type: 'illegal_argument_exception', reason: 'invalid id: [short]' }));
  });
});
