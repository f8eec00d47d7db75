// The context's two scopes: client-lifetime disposables go at each restart, extension-lifetime ones only at the end.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { AutobenchContext, DisposalScope } from '../../src/extension/context';
import { DEFAULT_SETTINGS, SETTINGS_NOTIFICATION } from '../../src/shared/protocol';

/** Just what the context calls on a LanguageClient, recording the calls. */
class FakeClient {
  readonly calls: string[] = [];
  readonly sent: Array<[string, unknown]> = [];
  constructor(readonly n: number) {}
  start(): Promise<void> {
    this.calls.push('start');
    return Promise.resolve();
  }
  dispose(): Promise<void> {
    this.calls.push('dispose');
    return Promise.resolve();
  }
  sendNotification(method: string, params: unknown): Promise<void> {
    this.sent.push([method, params]);
    return Promise.resolve();
  }
}

function disposable(events: string[], name: string): vscode.Disposable {
  return { dispose: () => void events.push(name) };
}

function setup() {
  const events: string[] = [];
  const subscriptions: vscode.Disposable[] = [];
  const clients: FakeClient[] = [];
  const log = { dispose: () => void events.push('log') } as unknown as vscode.LogOutputChannel;
  const extension = { subscriptions } as unknown as vscode.ExtensionContext;
  const ctx = new AutobenchContext(extension, log, {
    createClient: (_ctx, scope) => {
      const c = new FakeClient(clients.length + 1);
      clients.push(c);
      scope.push(disposable(events, `watcher ${c.n}`));
      return c as unknown as LanguageClient;
    },
    serverSettings: () => DEFAULT_SETTINGS,
  });
  ctx.onClientStart((client, scope) => {
    const n = (client as unknown as FakeClient).n;
    events.push(`hook ${n}`);
    scope.push(disposable(events, `handler ${n}`));
  });
  return { ctx, events, subscriptions, clients };
}

test('the context disposes with the extension', () => {
  const { ctx, subscriptions } = setup();
  assert.deepEqual(subscriptions, [ctx]);
});

test('start creates and starts one client, then runs the client hooks against it', async () => {
  const { ctx, events, clients } = setup();
  assert.equal(ctx.client, undefined);
  await ctx.start();
  await ctx.start();
  assert.equal(clients.length, 1);
  assert.equal(ctx.client, clients[0] as unknown as LanguageClient);
  assert.deepEqual(clients[0]?.calls, ['start']);
  assert.deepEqual(events, ['hook 1']);
});

test('restart disposes the client scope and the old client, then builds a new one; extension-lifetime items stay', async () => {
  const { ctx, events, clients } = setup();
  ctx.pushExtension(disposable(events, 'command'));
  await ctx.start();
  await ctx.restart();
  assert.equal(clients.length, 2);
  assert.equal(ctx.client, clients[1] as unknown as LanguageClient);
  assert.deepEqual(clients[0]?.calls, ['start', 'dispose']);
  assert.deepEqual(events, ['hook 1', 'handler 1', 'watcher 1', 'hook 2']);
});

test('settings go to the current client only, and nowhere once stopped', async () => {
  const { ctx, clients } = setup();
  ctx.pushSettings();
  await ctx.start();
  ctx.pushSettings();
  assert.deepEqual(clients[0]?.sent, [[SETTINGS_NOTIFICATION, DEFAULT_SETTINGS]]);
  await ctx.stop();
  ctx.pushSettings();
  assert.equal(clients[0]?.sent.length, 1);
  assert.equal(ctx.client, undefined);
});

test('dispose releases both scopes and disposes the log only after the client stopped', async () => {
  const { ctx, events, clients } = setup();
  ctx.pushExtension(disposable(events, 'status bar'), disposable(events, 'command'));
  await ctx.start();
  ctx.dispose();
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(events, ['hook 1', 'command', 'status bar', 'handler 1', 'watcher 1', 'log']);
  assert.deepEqual(clients[0]?.calls, ['start', 'dispose']);
});

test('a client stopped while it was starting gets no hooks', async () => {
  const { ctx, events } = setup();
  const starting = ctx.start();
  await ctx.stop();
  await starting;
  assert.deepEqual(events, ['watcher 1']);
});

test('one failing disposable does not keep the rest of its scope alive', () => {
  const events: string[] = [];
  const scope = new DisposalScope();
  scope.push(disposable(events, 'first'), { dispose: () => { throw new Error('boom'); } }, disposable(events, 'last'));
  scope.dispose();
  scope.dispose();
  assert.deepEqual(events, ['last', 'first']);
});
