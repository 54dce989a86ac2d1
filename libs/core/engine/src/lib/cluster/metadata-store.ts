/**
 * MetadataStore implementations: a JSON file under `<path.data>/_state/metadata.json` written atomically
 * (temp file, fsync, rename, fsync dir), and an in-memory one for tests.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ClusterMetadata, MetadataStore } from './metadata.js';
import { decodeStateFile, encodeStateFile } from '../store/state-file.js';

/** A 22-char base64url random id, like Elasticsearch's UUIDs.randomBase64UUID(). */
export function randomBase64Uuid(): string {
  return randomBytes(16).toString('base64url');
}

export function emptyClusterMetadata(clusterUuid = randomBase64Uuid()): ClusterMetadata {
  return { version: 0, clusterUuid, indices: {}, persistentSettings: {}, transientSettings: {}, custom: {} };
}

type Listener = (next: ClusterMetadata, prev: ClusterMetadata) => void;

function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object' && !Object.isFrozen(o)) {
    Object.freeze(o);
    for (const v of Object.values(o as Record<string, unknown>)) deepFreeze(v);
  }
  return o;
}

/** Shared logic: serialised updates on a draft copy, immutable snapshots, listeners. */
abstract class BaseMetadataStore implements MetadataStore {
  protected state: ClusterMetadata;
  private readonly listeners: Listener[] = [];
  private queue: Promise<unknown> = Promise.resolve();

  protected constructor(initial: ClusterMetadata) {
    this.state = deepFreeze(initial);
  }

  current(): ClusterMetadata {
    return this.state;
  }

  onChange(listener: Listener): void {
    this.listeners.push(listener);
  }

  update(fn: (draft: ClusterMetadata) => void): Promise<ClusterMetadata> {
    const run = async (): Promise<ClusterMetadata> => {
      const prev = this.state;
      const draft = structuredClone(prev) as ClusterMetadata;
      fn(draft);
      draft.version = prev.version + 1;
      draft.clusterUuid = prev.clusterUuid;
      await this.persist(draft);
      this.state = deepFreeze(draft);
      for (const l of this.listeners) {
        try {
          l(this.state, prev);
        } catch {
          // a listener must not break the update of everyone else
        }
      }
      return this.state;
    };
    const p = this.queue.then(run, run);
    this.queue = p.catch(() => undefined);
    return p;
  }

  protected abstract persist(next: ClusterMetadata): Promise<void>;
}

export class InMemoryMetadataStore extends BaseMetadataStore {
  constructor(initial: ClusterMetadata = emptyClusterMetadata()) {
    super(initial);
  }
  protected async persist(): Promise<void> {
    // nothing to do
  }
}

/** The persisted shape (transient settings are not persisted). */
function toPersisted(m: ClusterMetadata): Record<string, unknown> {
  return {
    version: m.version,
    cluster_uuid: m.clusterUuid,
    indices: m.indices,
    persistent_settings: m.persistentSettings,
    custom: m.custom,
  };
}

function fromPersisted(o: Record<string, unknown>): ClusterMetadata {
  return {
    version: typeof o['version'] === 'number' ? o['version'] : 0,
    clusterUuid: typeof o['cluster_uuid'] === 'string' ? o['cluster_uuid'] : randomBase64Uuid(),
    indices: (o['indices'] as ClusterMetadata['indices']) ?? {},
    persistentSettings: (o['persistent_settings'] as Record<string, unknown>) ?? {},
    transientSettings: {},
    custom: (o['custom'] as Record<string, unknown>) ?? {},
  };
}

export class FileMetadataStore extends BaseMetadataStore {
  readonly file: string;
  private readonly dir: string;

  /** Loads `<dataPath>/_state/metadata.json` (creating it on first start, so the cluster uuid is kept). */
  constructor(dataPath: string) {
    const dir = path.join(dataPath, '_state');
    const file = path.join(dir, 'metadata.json');
    fs.mkdirSync(dir, { recursive: true });
    let initial: ClusterMetadata;
    let fresh = false;
    if (fs.existsSync(file)) {
      initial = fromPersisted(decodeStateFile<Record<string, unknown>>(fs.readFileSync(file), 'cluster metadata'));
    } else {
      initial = emptyClusterMetadata();
      fresh = true;
    }
    super(initial);
    this.dir = dir;
    this.file = file;
    // a stale temp file from a crash mid-write is ignored and removed
    try {
      fs.rmSync(file + '.tmp', { force: true });
    } catch {
      /* ignore */
    }
    if (fresh) this.writeSync(initial);
  }

  private writeSync(m: ClusterMetadata): void {
    const tmp = this.file + '.tmp';
    const fd = fs.openSync(tmp, 'w');
    try {
      fs.writeSync(fd, encodeStateFile(toPersisted(m)));
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, this.file);
    this.fsyncDir();
  }

  private fsyncDir(): void {
    try {
      const d = fs.openSync(this.dir, 'r');
      try {
        fs.fsyncSync(d);
      } finally {
        fs.closeSync(d);
      }
    } catch {
      // some platforms cannot fsync a directory
    }
  }

  protected async persist(next: ClusterMetadata): Promise<void> {
    const tmp = this.file + '.tmp';
    const fh = await fs.promises.open(tmp, 'w');
    try {
      await fh.writeFile(encodeStateFile(toPersisted(next)));
      await fh.sync();
    } finally {
      await fh.close();
    }
    await fs.promises.rename(tmp, this.file);
    this.fsyncDir();
  }
}
