// The stdio transport's writer: each JSON-RPC message leaves in one write, its header and body together.
// vscode-jsonrpc's stream writer writes the header, waits for that write's callback, then writes the body: two pipe
// writes per message, so the client wakes once for a header it cannot use and again for the body. (The extension
// talks to the server over node IPC, one `process.send` per message; this is for stdio clients: other editors, tests.)
import { inspect } from 'node:util';
import { AbstractMessageWriter, type Connection, type Message, type MessageWriter } from 'vscode-languageserver/node';

export class OneWriteMessageWriter extends AbstractMessageWriter implements MessageWriter {
  private errors = 0;

  constructor(private readonly out: NodeJS.WritableStream) {
    super();
    out.on('error', (e: Error) => this.fireError(e));
    out.on('close', () => this.fireClose());
  }

  /** The same bytes as vscode-jsonrpc's writer (UTF-8 JSON after a Content-Length header), in one write. */
  write(msg: Message): Promise<void> {
    const json = JSON.stringify(msg);
    const frame = `Content-Length: ${Buffer.byteLength(json, 'utf8')}\r\n\r\n${json}`;
    return new Promise((resolve, reject) => {
      this.out.write(frame, 'utf8', (e) => {
        if (!e) return resolve();
        this.fireError(e, msg, ++this.errors);
        reject(e);
      });
    });
  }

  end(): void {
    this.out.end();
  }
}

/**
 * What `createConnection` does for `--stdio` but skips when given streams: console output that would go to stdout
 * (and corrupt the protocol) goes to the client's log instead.
 */
export function consoleToClient(connection: Connection): void {
  const text = (args: unknown[]): string => args.map((a) => (typeof a === 'string' ? a : inspect(a))).join(' ');
  console.log = (...args: unknown[]) => connection.console.log(text(args));
  console.debug = console.log;
  console.dir = (arg: unknown, options?: object) => connection.console.log(inspect(arg, options));
  console.info = (...args: unknown[]) => connection.console.info(text(args));
  console.warn = (...args: unknown[]) => connection.console.warn(text(args));
  console.error = (...args: unknown[]) => connection.console.error(text(args));
}
