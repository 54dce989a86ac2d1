/**
 * user_agent processor with a compact built-in rule set for the common browser, OS and device families
 * (the uap-core naming Elasticsearch uses: "Chrome", "Mobile Safari", "Mac OS X", "Spider", ...).
 * Rules are data, matched in order; the first match of each table wins.
 */
import { Errors } from '@strata/core-common';
import { javaTypeName, type JsonObject } from '../ingest-document.js';
import { defineProcessor, type ProcessorFactory } from '../processor.js';

interface Rule {
  re: RegExp;
  /** family name, or a function of the match */
  name: string | ((m: RegExpExecArray) => string);
  /** index of the first version group (major), up to 4 groups */
  v?: number;
}

const BOT_RE = /(bot|crawler|spider|slurp|crawl|facebookexternalhit|mediapartners-google)/i;

const AGENTS: Rule[] = [
  { re: /(Googlebot|bingbot|YandexBot|Baiduspider|DuckDuckBot|AhrefsBot|SemrushBot|Applebot|facebookexternalhit)(?:[-/](\d+)(?:\.(\d+))?(?:\.(\d+))?)?/i, name: (m) => m[1], v: 2 },
  { re: /\b(curl|Wget|python-requests|Go-http-client|Apache-HttpClient|okhttp|PostmanRuntime|Java)\/(\d+)(?:\.(\d+))?(?:\.(\d+))?/, name: (m) => m[1], v: 2 },
  { re: /\bEdgA?\/(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:\.(\d+))?/, name: 'Edge', v: 1 },
  { re: /\bEdge\/(\d+)(?:\.(\d+))?(?:\.(\d+))?/, name: 'Edge', v: 1 },
  { re: /\bOPR\/(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:\.(\d+))?/, name: 'Opera', v: 1 },
  { re: /\bSamsungBrowser\/(\d+)(?:\.(\d+))?(?:\.(\d+))?/, name: 'Samsung Internet', v: 1 },
  { re: /\bYaBrowser\/(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:\.(\d+))?/, name: 'Yandex Browser', v: 1 },
  { re: /\bCriOS\/(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:\.(\d+))?/, name: 'Chrome Mobile iOS', v: 1 },
  { re: /\bFxiOS\/(\d+)(?:\.(\d+))?(?:\.(\d+))?/, name: 'Firefox iOS', v: 1 },
  { re: /\bChrome\/(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:\.(\d+))?.*\bMobile\b/, name: 'Chrome Mobile', v: 1 },
  { re: /\bChrome\/(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:\.(\d+))?/, name: 'Chrome', v: 1 },
  { re: /\bMobile\b.*\bFirefox\/(\d+)(?:\.(\d+))?(?:\.(\d+))?/, name: 'Firefox Mobile', v: 1 },
  { re: /\bFirefox\/(\d+)(?:\.(\d+))?(?:\.(\d+))?/, name: 'Firefox', v: 1 },
  { re: /\bVersion\/(\d+)(?:\.(\d+))?(?:\.(\d+))?.*\bMobile\/\S+.*\bSafari\//, name: 'Mobile Safari', v: 1 },
  { re: /\bVersion\/(\d+)(?:\.(\d+))?(?:\.(\d+))?.*\bSafari\//, name: 'Safari', v: 1 },
  { re: /\bMSIE (\d+)(?:\.(\d+))?/, name: 'IE', v: 1 },
  { re: /\bTrident\/7\.0;.*rv:(\d+)(?:\.(\d+))?/, name: 'IE', v: 1 },
];

const OSES: Rule[] = [
  { re: /\bWindows NT 10\.0/, name: 'Windows', v: -10 },
  { re: /\bWindows NT 6\.3/, name: 'Windows', v: -81 },
  { re: /\bWindows NT 6\.2/, name: 'Windows', v: -8 },
  { re: /\bWindows NT 6\.1/, name: 'Windows', v: -7 },
  { re: /\bWindows NT 6\.0/, name: 'Windows', v: -6 },
  { re: /\bWindows NT 5\.1/, name: 'Windows', v: -5 },
  { re: /\b(?:iPhone|CPU) OS (\d+)(?:_(\d+))?(?:_(\d+))?/, name: 'iOS', v: 1 },
  { re: /\biPad.*OS (\d+)(?:_(\d+))?(?:_(\d+))?/, name: 'iOS', v: 1 },
  { re: /\bMac OS X (\d+)(?:[_.](\d+))?(?:[_.](\d+))?/, name: 'Mac OS X', v: 1 },
  { re: /\bAndroid (\d+)(?:\.(\d+))?(?:\.(\d+))?/, name: 'Android', v: 1 },
  { re: /\bCrOS \S+ (\d+)(?:\.(\d+))?(?:\.(\d+))?/, name: 'Chrome OS', v: 1 },
  { re: /\bUbuntu\b/, name: 'Ubuntu' },
  { re: /\bFedora\b/, name: 'Fedora' },
  { re: /\bLinux\b/, name: 'Linux' },
];

const WINDOWS_VERSIONS: Record<number, string> = { [-10]: '10', [-81]: '8.1', [-8]: '8', [-7]: '7', [-6]: 'Vista', [-5]: 'XP' };

export interface UserAgentInfo {
  name: string;
  version?: string;
  os?: { name: string; version?: string; full: string };
  device: { name: string };
  deviceType?: string;
}

function version(m: RegExpExecArray, first: number): string | undefined {
  const parts: string[] = [];
  for (let i = first; i < first + 4 && i < m.length; i++) {
    if (m[i] === undefined) break;
    parts.push(m[i]);
  }
  return parts.length > 0 ? parts.join('.') : undefined;
}

export function parseUserAgent(ua: string): UserAgentInfo {
  const out: UserAgentInfo = { name: 'Other', device: { name: 'Other' } };
  for (const r of AGENTS) {
    const m = r.re.exec(ua);
    if (m) {
      out.name = typeof r.name === 'string' ? r.name : r.name(m);
      if (r.v !== undefined) out.version = version(m, r.v);
      break;
    }
  }
  for (const r of OSES) {
    const m = r.re.exec(ua);
    if (m) {
      const v = r.v !== undefined && r.v < 0 ? WINDOWS_VERSIONS[r.v] : r.v !== undefined ? version(m, r.v) : undefined;
      const name = typeof r.name === 'string' ? r.name : r.name(m);
      out.os = v ? { name, version: v, full: `${name} ${v}` } : { name, full: name };
      break;
    }
  }
  if (BOT_RE.test(ua)) {
    out.device.name = 'Spider';
    out.deviceType = 'Robot';
  } else if (/\biPhone\b/.test(ua)) {
    out.device.name = 'iPhone';
    out.deviceType = 'Phone';
  } else if (/\biPad\b/.test(ua)) {
    out.device.name = 'iPad';
    out.deviceType = 'Tablet';
  } else if (/\bMacintosh\b/.test(ua)) {
    out.device.name = 'Mac';
    out.deviceType = 'Desktop';
  } else if (/\bAndroid\b/.test(ua)) {
    const model = /\bAndroid [\d.]+;\s*(?:[a-z]{2}[-_][a-zA-Z]{2};\s*)?([^;)]+?)(?:\s+Build\/[^;)]*)?\)/.exec(ua);
    const tablet = !/\bMobile\b/.test(ua);
    out.device.name = model && model[1] !== 'K' ? model[1].trim() : tablet ? 'Generic Tablet' : 'Generic Smartphone';
    out.deviceType = tablet ? 'Tablet' : 'Phone';
  } else if (out.os && ['Windows', 'Linux', 'Ubuntu', 'Fedora', 'Chrome OS'].includes(out.os.name)) {
    out.deviceType = 'Desktop';
  }
  return out;
}

const PROPERTIES = ['name', 'os', 'device', 'original', 'version'];

export const userAgentProcessor: ProcessorFactory = defineProcessor('user_agent', (r) => {
  const field = r.requiredString('field');
  const target = r.optionalString('target_field', 'user_agent')!;
  const props = (r.optionalList('properties') as string[] | undefined) ?? PROPERTIES;
  for (const p of props) {
    if (!PROPERTIES.includes(p)) {
      throw r.error('properties', `illegal property value [${p}]. valid values are [NAME, OS, DEVICE, ORIGINAL, VERSION]`);
    }
  }
  const regexFile = r.optionalString('regex_file');
  if (regexFile !== undefined) throw r.error('regex_file', `regex file [${regexFile}] doesn't exist (has to exist at node startup)`);
  const extractDeviceType = r.bool('extract_device_type', false);
  const ignoreMissing = r.bool('ignore_missing', false);
  return {
    execute(doc) {
      const v = doc.getFieldValue(field, ignoreMissing);
      if (v === undefined || v === null) {
        if (ignoreMissing) return doc;
        throw Errors.illegalArgument(`field [${field}] is null, cannot parse user-agent.`);
      }
      if (typeof v !== 'string') {
        throw Errors.illegalArgument(`field [${field}] of type [${javaTypeName(v)}] cannot be cast to [java.lang.String]`);
      }
      const info = parseUserAgent(v);
      const out: JsonObject = {};
      for (const p of props) {
        if (p === 'name') out['name'] = info.name;
        else if (p === 'original') out['original'] = v;
        else if (p === 'version' && info.version !== undefined) out['version'] = info.version;
        else if (p === 'os' && info.os) out['os'] = { ...info.os };
        else if (p === 'device') {
          const d: JsonObject = { name: info.device.name };
          if (extractDeviceType && info.deviceType) d['type'] = info.deviceType;
          out['device'] = d;
        }
      }
      doc.setFieldValue(target, out);
      return doc;
    },
  };
});
