/**
 * Requests Node's HTTP parser refuses before any handler runs (an unknown method, a header or request line
 * past the limits, raw bytes the parser does not accept, a broken Content-Length) are answered the way
 * Elasticsearch's HTTP layer answers a request it cannot decode: status 400 with an Elasticsearch error body,
 * then the connection is closed.
 */
import { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';

interface ParserError extends Error {
  code?: string;
  rawPacket?: Buffer;
}

export interface ClientErrorLimits {
  maxHeaderSize: number;
  maxInitialLineLength: number;
}

/** the status, error type and reason Elasticsearch gives a request its HTTP decoder rejected */
export function describeClientError(err: ParserError, limits: ClientErrorLimits): { status: number; type: string; reason: string } {
  const raw = err.rawPacket ?? Buffer.alloc(0);
  const eol = raw.indexOf('\r\n');
  const firstLine = (eol === -1 ? raw : raw.subarray(0, eol)).toString('latin1');
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      if (eol === -1 || eol > limits.maxInitialLineLength) {
        return { status: 400, type: 'too_long_http_line_exception', reason: `An HTTP line is larger than ${limits.maxInitialLineLength} bytes.` };
      }
      return { status: 400, type: 'too_long_http_header_exception', reason: `HTTP header is larger than ${limits.maxHeaderSize} bytes.` };
    case 'HPE_INVALID_METHOD': {
      const method = /^[^ \r\n]*/.exec(firstLine)![0];
      return { status: 400, type: 'illegal_argument_exception', reason: `Unexpected http method: ${printable(method)}` };
    }
    case 'HPE_INVALID_URL':
      return { status: 400, type: 'illegal_argument_exception', reason: `invalid uri in request line [${printable(firstLine)}]` };
    case 'HPE_INVALID_VERSION':
      return { status: 400, type: 'illegal_argument_exception', reason: `invalid version format in request line [${printable(firstLine)}]` };
    case 'HPE_INVALID_CONTENT_LENGTH':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return { status: 400, type: 'illegal_argument_exception', reason: 'invalid Content-Length header' };
    case 'HPE_INVALID_TRANSFER_ENCODING':
    case 'HPE_INVALID_CHUNK_SIZE':
      return { status: 400, type: 'illegal_argument_exception', reason: 'invalid chunked transfer encoding' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, type: 'exception', reason: 'request timed out' };
    default:
      return { status: 400, type: 'illegal_argument_exception', reason: `invalid HTTP request: ${err.message.replace(/^Parse Error: /, '')}` };
  }
}

/** control characters and non-ASCII bytes as \xNN so the reason is plain ASCII JSON */
function printable(s: string): string {
  const max = 256;
  const cut = s.length > max ? s.slice(0, max) + '...' : s;
  // eslint-disable-next-line no-control-regex
  return cut.replace(/[\x00-\x1f\x7f-\xff]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** the raw HTTP/1.1 response for a request that never reached the pipeline */
export function clientErrorResponse(status: number, type: string, reason: string): string {
  const body = JSON.stringify({ error: { root_cause: [{ type, reason }], type, reason }, status });
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Bad Request'}\r\n` +
    'X-Elastic-Product: Elasticsearch\r\n' +
    'content-type: application/json\r\n' +
    `content-length: ${Buffer.byteLength(body)}\r\n` +
    'connection: close\r\n\r\n' +
    body
  );
}

/** answers parser-level failures of `server` with Elasticsearch error bodies */
export function installClientErrorHandler(server: Server, limits: ClientErrorLimits): void {
  server.on('clientError', (err: ParserError, socket: Duplex) => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const { status, type, reason } = describeClientError(err, limits);
    socket.end(clientErrorResponse(status, type, reason));
  });
}
