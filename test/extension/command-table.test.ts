// The command table and package.json name the same commands, and the table spells no id of its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { COMMAND_IDS } from '../../src/extension/command-ids';
import { extensionSources, manifest } from './manifest';

const ids = Object.values(COMMAND_IDS);

test('the command ids are exactly package.json contributes.commands', () => {
  const declared = manifest().contributes.commands.map((c) => c.command);
  assert.equal(new Set(declared).size, declared.length, 'package.json lists a command twice');
  assert.equal(new Set(ids).size, ids.length, 'command-ids.ts lists an id twice');
  assert.deepEqual([...declared].sort(), [...ids].sort());
});

test('every id is autobench.<verbNoun>', () => {
  for (const id of ids) assert.match(id, /^autobench\.[a-z]+[A-Z][A-Za-z]*$/, id);
});

test('menus and activation events name only known commands', () => {
  const m = manifest();
  const known = new Set<string>(ids);
  const inMenus = Object.values(m.contributes.menus ?? {}).flatMap((items) => items.map((i) => i.command));
  const onCommand = (m.activationEvents ?? []).filter((e) => e.startsWith('onCommand:')).map((e) => e.slice('onCommand:'.length));
  assert.deepEqual([...inMenus, ...onCommand].filter((c) => !known.has(c)), []);
});

test('commands.ts registers every id from COMMAND_IDS and spells none itself', () => {
  const table = extensionSources().get('commands.ts') ?? '';
  assert.doesNotMatch(table, /['"`]autobench\.[A-Za-z]+['"`]/, 'commands.ts spells a command id instead of using COMMAND_IDS');
  const keys = [...table.matchAll(/\[COMMAND_IDS\.(\w+)\]:/g)].map((m) => m[1]);
  assert.deepEqual(keys.sort(), Object.keys(COMMAND_IDS).sort());
});

test('no other extension module registers a command', () => {
  const registering = [...extensionSources()].filter(([, text]) => /commands\.registerCommand\s*\(/.test(text)).map(([f]) => f);
  assert.deepEqual(registering, ['commands.ts']);
});
