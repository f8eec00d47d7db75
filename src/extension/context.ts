// The extension's context: two disposal scopes (extension lifetime; language-client lifetime, re-created on restart) and the client itself.
// Only types from vscode: the scopes and the restart sequence run under node:test with a fake client.
import type * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { SETTINGS_NOTIFICATION, type ServerSettings } from '../shared/protocol';

/** Disposables released together, last registered first. */
export class DisposalScope implements vscode.Disposable {
  private items: vscode.Disposable[] = [];

  push(...items: vscode.Disposable[]): void {
    this.items.push(...items);
  }

  dispose(): void {
    const items = this.items.reverse();
    this.items = [];
    for (const d of items) {
      try {
        d.dispose();
      } catch {
        // One failing disposable must not keep the others alive.
      }
    }
  }
}

/** Builds a client that is not started yet; what it creates alongside (file watchers) goes into `scope`. */
export type ClientFactory = (ctx: AutobenchContext, scope: DisposalScope) => LanguageClient;

/** Runs after each (re)start: handlers registered against the client go into `scope` and die with it. */
export type ClientHook = (client: LanguageClient, scope: DisposalScope) => void;

export interface ContextOptions {
  createClient: ClientFactory;
  /** The settings pushed to the server (settings.ts's readServerSettings). */
  serverSettings: () => ServerSettings;
}

export class AutobenchContext implements vscode.Disposable {
  private readonly extensionScope = new DisposalScope();
  private clientScope = new DisposalScope();
  private current: LanguageClient | undefined;
  private readonly hooks: ClientHook[] = [];

  /** Takes `log` over: it is disposed with the context. */
  constructor(
    readonly extension: vscode.ExtensionContext,
    readonly log: vscode.LogOutputChannel,
    private readonly options: ContextOptions,
  ) {
    extension.subscriptions.push(this);
  }

  /** The language client while one exists (from start until stop). */
  get client(): LanguageClient | undefined {
    return this.current;
  }

  /** Extension lifetime: commands, panels, status bar, providers. */
  pushExtension(...items: vscode.Disposable[]): void {
    this.extensionScope.push(...items);
  }

  /** Registers what every client needs once it runs; applied at each start. */
  onClientStart(hook: ClientHook): void {
    this.hooks.push(hook);
  }

  async start(): Promise<void> {
    if (this.current) return;
    const scope = new DisposalScope();
    this.clientScope = scope;
    const client = this.options.createClient(this, scope);
    this.current = client;
    await client.start();
    // Stopped (or restarted) while starting: the hooks belong to the client now current, if any.
    if (this.current !== client) return;
    for (const hook of this.hooks) hook(client, scope);
  }

  /** Disposes the client scope, then stops the client (LanguageClient.dispose waits up to 2 s for the server). */
  async stop(): Promise<void> {
    const client = this.current;
    const scope = this.clientScope;
    this.current = undefined;
    this.clientScope = new DisposalScope();
    scope.dispose();
    await client?.dispose();
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  /** Sends the server the current settings (it reads none itself). */
  pushSettings(): void {
    void this.current?.sendNotification(SETTINGS_NOTIFICATION, this.options.serverSettings());
  }

  /** Everything goes; the log last, once the client stopped, so the client's last lines still land in it. */
  dispose(): void {
    this.extensionScope.dispose();
    this.stop()
      // The extension is going away: a server that does not stop cleanly exits with the extension host anyway.
      .catch(() => undefined)
      .finally(() => this.log.dispose());
  }
}
