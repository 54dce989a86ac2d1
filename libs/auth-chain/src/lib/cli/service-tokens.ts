/**
 * The `service-tokens` command-line tool, like `elasticsearch-service-tokens`: writes the file-backed
 * service account token store (`service_tokens` in the configuration directory) that the node reads and
 * re-reads when it changes. Tokens are stored only as salted hashes.
 *
 *   service-tokens create <namespace/service> <token-name>   prints SERVICE_TOKEN <ns/svc/name> = <value>
 *   service-tokens list [<namespace/service>]
 *   service-tokens delete <namespace/service> <token-name>
 */
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { SERVICE_ACCOUNTS } from '../authz/reserved-roles.js';
import { hasher } from '../crypto/hasher.js';
import { FILE_NAMES } from '../authc/file-realm-files.js';
import { TOKEN_NAME_PATTERN, TOKEN_NAME_RULES, encodeServiceToken, newServiceTokenSecret } from '../service/service-account-service.js';

export interface CliIo {
  configDir: string;
  /** `xpack.security.authc.service_token_hashing.algorithm` (default pbkdf2_stretch) */
  hashing?: string;
  out(line: string): void;
  err(line: string): void;
}

export const EXIT = { OK: 0, USAGE: 64, DATA_ERROR: 65, IO_ERROR: 74 } as const;

const USAGE = `Manages elasticsearch service account file-tokens

Commands
--------
create - Create a file token for specified service account and token name
delete - Remove a file token for specified service account and token name
list - List file tokens for the specified service accounts

Usage: service-tokens create <namespace/service> <token-name>
       service-tokens delete <namespace/service> <token-name>
       service-tokens list [<namespace/service>]`;

function readLines(file: string): string[] {
  try {
    return readFileSync(file, 'utf8').split(/\r?\n/).filter((l) => l.trim() !== '');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
}

function writeAtomically(file: string, lines: string[]): void {
  const tmp = `${file}.tmp`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeSync(fd, lines.length ? lines.join('\n') + '\n' : '');
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
}

function keyOf(line: string): string {
  const i = line.indexOf(':');
  return i < 0 ? line : line.slice(0, i);
}

export async function runServiceTokensCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [cmd, account, name, ...rest] = argv;
  const file = join(io.configDir, FILE_NAMES.serviceTokens);
  const checkAccount = (a: string | undefined): boolean => {
    if (a === undefined) {
      io.err('ERROR: Missing service account principal argument');
      return false;
    }
    if (!SERVICE_ACCOUNTS.has(a)) {
      io.err(`ERROR: Unknown service account principal: [${a}]. Must be one of [${[...SERVICE_ACCOUNTS.keys()].join(', ')}]`);
      return false;
    }
    return true;
  };
  if (cmd === undefined || cmd === '-h' || cmd === '--help') {
    io.out(USAGE);
    return cmd === undefined ? EXIT.USAGE : EXIT.OK;
  }
  if (cmd === 'list') {
    if (name !== undefined || (account !== undefined && !checkAccount(account))) return EXIT.USAGE;
    for (const l of readLines(file)) {
      const k = keyOf(l);
      if (account === undefined || k.startsWith(account + '/')) io.out(k);
    }
    return EXIT.OK;
  }
  if (cmd !== 'create' && cmd !== 'delete') {
    io.err(`ERROR: Unknown command [${cmd}]`);
    io.out(USAGE);
    return EXIT.USAGE;
  }
  if (!checkAccount(account)) return EXIT.USAGE;
  if (name === undefined || rest.length > 0) {
    io.err('ERROR: Expected exactly two arguments: <namespace/service> <token-name>');
    return EXIT.USAGE;
  }
  if (!TOKEN_NAME_PATTERN.test(name)) {
    io.err(`ERROR: Invalid service token name [${name}]: ${TOKEN_NAME_RULES}`);
    return EXIT.DATA_ERROR;
  }
  const qualified = `${account}/${name}`;
  const lines = readLines(file);
  const exists = lines.some((l) => keyOf(l) === qualified);
  try {
    mkdirSync(io.configDir, { recursive: true });
    if (cmd === 'create') {
      if (exists) {
        io.err(`ERROR: Service token [${qualified}] already exists`);
        return EXIT.DATA_ERROR;
      }
      const secret = newServiceTokenSecret();
      const hash = await hasher(io.hashing ?? 'pbkdf2_stretch').hash(secret);
      writeAtomically(file, [...lines, `${qualified}:${hash}`]);
      io.out(`SERVICE_TOKEN ${qualified} = ${encodeServiceToken(account!, name, secret)}`);
      return EXIT.OK;
    }
    if (!exists) {
      io.err(`ERROR: Service token [${qualified}] does not exist`);
      return EXIT.DATA_ERROR;
    }
    writeAtomically(
      file,
      lines.filter((l) => keyOf(l) !== qualified),
    );
    return EXIT.OK;
  } catch (e) {
    io.err(`ERROR: failed to write [${file}]: ${e instanceof Error ? e.message : String(e)}`);
    return EXIT.IO_ERROR;
  }
}
