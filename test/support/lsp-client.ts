// A test LSP client: spawns the built server over stdio and speaks vscode-jsonrpc to it.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node';
import type { Diagnostic, PublishDiagnosticsParams } from 'vscode-languageserver-protocol';
import { REPO } from './fixtures';

export const SERVER = join(REPO, 'dist', 'server.js');

export interface Published {
  version: number | undefined;
  diagnostics: Diagnostic[];
}

export class TestClient {
  readonly conn: MessageConnection;
  private readonly proc: ChildProcess;
  /** Every publishDiagnostics, in arrival order, per uri. */
  readonly published = new Map<string, Published[]>();
  readonly notifications: Array<{ method: string; params: unknown }> = [];
  private waiters: Array<() => void> = [];
  private versions = new Map<string, number>();
  /** What `workspace/configuration` answers for each item (yaml-language-server asks for its settings). */
  configuration: unknown = null;

  get pid(): number | undefined {
    return this.proc.pid;
  }

  /** Starts `node <args>` (default: our built server over stdio). */
  constructor(args: string[] = [SERVER, '--stdio']) {
    this.proc = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'ignore'] });
    this.conn = createMessageConnection(new StreamMessageReader(this.proc.stdout!), new StreamMessageWriter(this.proc.stdin!));
    this.conn.onNotification('textDocument/publishDiagnostics', (p: PublishDiagnosticsParams) => {
      const list = this.published.get(p.uri) ?? [];
      list.push({ version: p.version, diagnostics: p.diagnostics });
      this.published.set(p.uri, list);
      this.wake();
    });
    this.conn.onNotification((method: string, params: unknown) => {
      this.notifications.push({ method, params });
      this.wake();
    });
    this.conn.onRequest('workspace/configuration', (p: { items: unknown[] }) => p.items.map(() => this.configuration));
    this.conn.onRequest('client/registerCapability', () => null);
    this.conn.onRequest('window/workDoneProgress/create', () => null);
    this.conn.listen();
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  async initialize(options: Record<string, unknown> = {}, rootPath?: string, raw = false): Promise<void> {
    await this.conn.sendRequest('initialize', {
      processId: process.pid,
      rootUri: rootPath ? pathToFileURL(rootPath).toString() : null,
      workspaceFolders: rootPath ? [{ uri: pathToFileURL(rootPath).toString(), name: 'ws' }] : null,
      capabilities: { textDocument: { publishDiagnostics: { versionSupport: true } }, workspace: { configuration: true } },
      initializationOptions: raw ? options : { debounceMs: 20, ...options },
    });
    await this.conn.sendNotification('initialized', {});
  }

  open(uri: string, text: string, version = 1): void {
    this.versions.set(uri, version);
    void this.conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'yaml', version, text } });
  }

  /** Replaces the whole text (a full-content change event); returns the new version. */
  change(uri: string, text: string): number {
    const v = (this.versions.get(uri) ?? 1) + 1;
    this.versions.set(uri, v);
    void this.conn.sendNotification('textDocument/didChange', { textDocument: { uri, version: v }, contentChanges: [{ text }] });
    return v;
  }

  /** An incremental single-range edit; returns the new version. */
  edit(uri: string, range: { start: { line: number; character: number }; end: { line: number; character: number } }, text: string): number {
    const v = (this.versions.get(uri) ?? 1) + 1;
    this.versions.set(uri, v);
    void this.conn.sendNotification('textDocument/didChange', { textDocument: { uri, version: v }, contentChanges: [{ range, text }] });
    return v;
  }

  close(uri: string): void {
    void this.conn.sendNotification('textDocument/didClose', { textDocument: { uri } });
  }

  /** Waits (bounded) until `pred` holds, re-checking on every message from the server. */
  async until<T>(pred: () => T | undefined | false, what: string, timeoutMs = 10000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const v = pred();
      if (v) return v;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  /** The diagnostics published for exactly this version of the document. */
  diagnosticsFor(uri: string, version: number): Promise<Diagnostic[]> {
    return this.until(() => this.published.get(uri)?.find((p) => p.version === version)?.diagnostics, `diagnostics of ${uri} v${version}`);
  }

  async shutdown(): Promise<void> {
    try {
      await this.conn.sendRequest('shutdown');
      await this.conn.sendNotification('exit');
    } catch {
      /* already gone */
    }
    this.conn.dispose();
    this.proc.kill();
  }
}
