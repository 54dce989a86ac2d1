/**
 * The flood-stage disk watermark, as Elasticsearch's DiskThresholdMonitor applies it: when the disk holding
 * `path.data` is fuller than `cluster.routing.allocation.disk.watermark.flood_stage` (default 95%, with a
 * 100 GB max headroom while the default is in use), every index gets `index.blocks.read_only_allow_delete`;
 * once usage is back under the high watermark (default 90%, 150 GB max headroom) the block is lifted again.
 * Checked every `cluster.info.update.interval` (30s). The probe is injectable (EngineTokens.DiskUsageProbe)
 * so tests can fake a full disk.
 */
import { statfsSync } from 'node:fs';
import { inject, injectable, optional } from 'inversify';
import { Errors, SettingParsers, Tokens, parseByteSize, parseTimeValue, setting, type HostConfig, type LifecycleComponent, type Logger, type SettingDef } from '@strata/core-common';
import type { MetadataStore } from './metadata.js';
import { EngineTokens, type MetadataIndexService } from '../services.js';

export interface DiskUsage {
  totalBytes: number;
  availableBytes: number;
}

/** measures the disk holding a path (undefined when it cannot be measured) */
export interface DiskUsageProbe {
  usage(path: string): DiskUsage | undefined;
}

export const statfsDiskUsageProbe: DiskUsageProbe = {
  usage(path: string): DiskUsage | undefined {
    try {
      const st = statfsSync(path);
      return { totalBytes: st.blocks * st.bsize, availableBytes: st.bavail * st.bsize };
    } catch {
      return undefined;
    }
  },
};

const PREFIX = 'cluster.routing.allocation.disk.';
const BLOCK = 'index.blocks.read_only_allow_delete';

/** a watermark: a used percentage (`95%`, `0.95`) or the free bytes that must remain (`1gb`) */
export type Watermark = { kind: 'percent'; usedPercent: number } | { kind: 'bytes'; freeBytes: number };

/** parses a watermark value as RelativeByteSizeValue does; throws illegal_argument_exception */
export function parseWatermark(raw: unknown, key: string): Watermark {
  const s = String(raw).trim();
  const pct = /^(\d+(?:\.\d+)?)%$/.exec(s);
  if (pct) {
    const v = Number(pct[1]);
    if (v > 100) throw Errors.illegalArgument(`failed to parse [${key}=${s}]`);
    return { kind: 'percent', usedPercent: v };
  }
  if (/^\d+(?:\.\d+)?$/.test(s)) {
    const ratio = Number(s);
    if (ratio > 1) throw Errors.illegalArgument(`failed to parse [${key}=${s}]`);
    return { kind: 'percent', usedPercent: ratio * 100 };
  }
  try {
    return { kind: 'bytes', freeBytes: parseByteSize(s, key) };
  } catch {
    throw Errors.illegalArgument(`unable to consider setting [${key}] as a percentage or byte size value: [${s}]`);
  }
}

/** the free bytes below which a watermark is exceeded on a disk of `total` bytes */
export function freeBytesThreshold(w: Watermark, total: number, maxHeadroom: number): number {
  if (w.kind === 'bytes') return w.freeBytes;
  const byPercent = total * (1 - w.usedPercent / 100);
  return maxHeadroom >= 0 ? Math.min(byPercent, maxHeadroom) : byPercent;
}

const GB = 1024 ** 3;

const watermark = (name: string, dflt: string): SettingDef =>
  setting({
    key: `${PREFIX}watermark.${name}`,
    scope: 'cluster',
    dynamic: true,
    defaultValue: dflt,
    parse: (raw: unknown): string => {
      parseWatermark(raw, `${PREFIX}watermark.${name}`);
      return String(raw);
    },
  }) as SettingDef;

/** the disk-threshold settings (validated; the rest of cluster.routing.allocation.* is accepted as is) */
export const DISK_THRESHOLD_SETTINGS: readonly SettingDef[] = [
  setting({ key: PREFIX + 'threshold_enabled', scope: 'cluster', dynamic: true, defaultValue: true, parse: SettingParsers.boolean(PREFIX + 'threshold_enabled') }) as SettingDef,
  watermark('low', '85%'),
  watermark('high', '90%'),
  watermark('flood_stage', '95%'),
];

@injectable()
export class DiskThresholdMonitor implements LifecycleComponent {
  readonly name = 'disk-threshold-monitor';
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  /** whether the last check found the flood stage exceeded */
  floodStageExceeded = false;

  constructor(
    @inject(EngineTokens.MetadataStore) private readonly store: MetadataStore,
    @inject(EngineTokens.MetadataIndexService) private readonly indices: MetadataIndexService,
    @inject(EngineTokens.DiskUsageProbe) private readonly probe: DiskUsageProbe,
    @inject(Tokens.HostConfig) @optional() private readonly config?: HostConfig,
    @inject(Tokens.Logger) @optional() private readonly logger?: Logger,
  ) {}

  private setting(key: string): unknown {
    const md = this.store.current();
    return md.transientSettings[key] ?? md.persistentSettings[key] ?? this.config?.settings[key];
  }

  start(): void {
    const raw = this.setting('cluster.info.update.interval');
    const interval = raw === undefined || raw === null ? 30_000 : typeof raw === 'number' ? raw : parseTimeValue(raw, 'cluster.info.update.interval');
    this.timer = setInterval(() => void this.check().catch((err) => this.logger?.warn({ err: String(err) }, 'disk threshold check failed')), Math.max(1000, interval));
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** one check: blocks every index past the flood stage, releases them under the high watermark */
  check(): Promise<void> {
    if (!this.running) {
      this.running = this.checkOnce().finally(() => {
        this.running = null;
      });
    }
    return this.running;
  }

  private async checkOnce(): Promise<void> {
    const enabled = this.setting(PREFIX + 'threshold_enabled');
    if (enabled === false || enabled === 'false') return;
    const path = String(this.config?.settings['path.data'] ?? '.');
    const usage = this.probe.usage(path);
    if (!usage || usage.totalBytes <= 0) return;
    const floodKey = PREFIX + 'watermark.flood_stage';
    const highKey = PREFIX + 'watermark.high';
    const floodRaw = this.setting(floodKey);
    const highRaw = this.setting(highKey);
    const flood = parseWatermark(floodRaw ?? '95%', floodKey);
    const high = parseWatermark(highRaw ?? '90%', highKey);
    const headroom = (key: string, explicit: unknown, dflt: number): number => {
      const v = this.setting(key);
      if (v !== undefined && v !== null) return String(v) === '-1' ? -1 : parseByteSize(v, key);
      return explicit === undefined || explicit === null ? dflt : -1;
    };
    const floodFree = freeBytesThreshold(flood, usage.totalBytes, headroom(floodKey + '.max_headroom', floodRaw, 100 * GB));
    const highFree = freeBytesThreshold(high, usage.totalBytes, headroom(highKey + '.max_headroom', highRaw, 150 * GB));
    const md = this.store.current();
    const names = Object.keys(md.indices);
    if (usage.availableBytes < floodFree) {
      const toBlock = names.filter((n) => !isOn(md.indices[n]!.settings[BLOCK]));
      if (!this.floodStageExceeded) {
        const usedPct = (100 * (usage.totalBytes - usage.availableBytes)) / usage.totalBytes;
        this.logger?.warn(
          { path, free: usage.availableBytes, usedPercent: Number(usedPct.toFixed(1)) },
          `flood stage disk watermark [${String(floodRaw ?? '95%')}] exceeded on [${path}], all indices on this node will be marked read-only`,
        );
      }
      this.floodStageExceeded = true;
      if (toBlock.length > 0) await this.indices.updateSettings(toBlock, { [BLOCK]: true });
    } else {
      this.floodStageExceeded = false;
      if (usage.availableBytes >= highFree) {
        const toRelease = names.filter((n) => isOn(md.indices[n]!.settings[BLOCK]));
        if (toRelease.length > 0) {
          this.logger?.info({ indices: toRelease }, 'releasing read-only-allow-delete block on indices: disk usage is below the high watermark');
          await this.indices.updateSettings(toRelease, { [BLOCK]: null });
        }
      }
    }
  }
}

function isOn(v: unknown): boolean {
  return v === true || v === 'true';
}
