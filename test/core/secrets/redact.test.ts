// Redaction by name as well as by shape: a value given to an option or header named as a secret is redacted whatever it looks like; option names that only contain such a word (--tokenizer, --max-num-batched-tokens) are left alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { redactArgv, redactSecrets } from '../../../src/core/secrets';

test('options named as secrets: the value goes, the name stays, in both spellings', () => {
  assert.equal(redactSecrets('vllm serve m --api-key abc123 --port 8000'), 'vllm serve m --api-key <redacted> --port 8000');
  assert.equal(redactSecrets('x --hf-token=plainword y'), 'x --hf-token=<redacted> y');
  assert.equal(redactSecrets("x --admin-api-key 'a b;$(c)' --p 1"), 'x --admin-api-key <redacted> --p 1');
  assert.equal(redactSecrets('x --db_password "s p" z'), 'x --db_password <redacted> z');
  // A boolean option before another option: the next option is not taken for its value.
  assert.equal(redactSecrets('x --enable-auth --port 8000'), 'x --enable-auth --port 8000');
});

test('headers named as secrets, whatever the value looks like', () => {
  assert.equal(redactSecrets('autobench bench --header X-Api-Key=k1 --header Accept=json'), 'autobench bench --header X-Api-Key=<redacted> --header Accept=json');
  assert.equal(redactSecrets('Authorization: Basic dXNlcjpw'), 'Authorization: <redacted>');
  assert.equal(redactSecrets('Authorization: Bearer short'), 'Authorization: <redacted>');
  assert.equal(redactSecrets('GET /v1/models?token=abc'), 'GET /v1/models?token=<redacted>');
  // A value that says there is none is no secret.
  assert.equal(redactSecrets('listening 4000 token=none; --api-key null; Authorization: None'), 'listening 4000 token=none; --api-key null; Authorization: None');
  assert.equal(redactSecrets('token=nonesuch'), 'token=<redacted>');
});

test('words that only contain a secret-like part are left alone', () => {
  const cmd = 'vllm serve m --tokenizer /models/t --skip-tokenizer-init --max-num-batched-tokens 8192 --max_num_tokens 4096 --tokenizer-mode auto';
  assert.equal(redactSecrets(cmd), cmd);
  const log = 'Decode batch. #running-req: 3, token usage: 0.41, gen throughput (token/s): 812.5, #queue-req: 0; max_tokens=128; "token": "x"';
  assert.equal(redactSecrets(log), log);
  assert.equal(redactSecrets('autobench bench --tokenizer autobench-sim --num-prompts 64'), 'autobench bench --tokenizer autobench-sim --num-prompts 64');
});

test('shapes are still found where no name says so', () => {
  assert.equal(redactSecrets('echo hf_abcdefghijklmnopqrstu'), 'echo <redacted>');
  assert.equal(redactSecrets('HF_TOKEN=anything'), 'HF_TOKEN=<redacted>');
});

test('an argv: each value named as a secret goes whole, spaces and quotes included; other words only by shape', () => {
  assert.deepEqual(redactArgv(['--api-key', "a b'c;$(x)", '--port', '8000']), ['--api-key', '<redacted>', '--port', '8000']);
  assert.deepEqual(redactArgv(['--hf-token=x y', '--header', 'X-Api-Key=k 1', 'Accept=json', 'Authorization: Bearer z']), ['--hf-token=<redacted>', '--header', 'X-Api-Key=<redacted>', 'Accept=json', 'Authorization: <redacted>']);
  assert.deepEqual(redactArgv(['--tokenizer', 'autobench-sim', '--enable-auth', '--port', '1', 'hf_abcdefghijklmnopqrstu']), ['--tokenizer', 'autobench-sim', '--enable-auth', '--port', '1', '<redacted>']);
});
