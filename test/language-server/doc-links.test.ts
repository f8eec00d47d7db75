// Links to our own documentation: which page explains a finding or a hovered key, the file URI the server links (docs/ beside
// dist/, as in the installed extension), and that every linked page ships in the package.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DOC_PAGES, docPageForFinding, docPageForPath, type DocPage } from '../../src/core/editor/docs';
import { DocLinks } from '../../language-server/src/docs';
import { REPO } from '../support/fixtures';

describe('which page explains what', () => {
  test('the SLA findings and the SLA block, wherever the config keeps it; nothing else', () => {
    assert.deepEqual(['sla-deprecated', 'sla-unknown', 'sla-mapping', 'unknown-flag', 'constructor'].map(docPageForFinding), ['sla', 'sla', 'sla', undefined, undefined]);
    assert.equal(docPageForPath(['benchmark', 'sla', 'max_p50_ttft_ms'], ['benchmark', 'sla']), 'sla');
    assert.equal(docPageForPath(['sla'], ['sla']), 'sla');
    assert.equal(docPageForPath(['benchmark', 'endpoint'], ['benchmark', 'sla']), undefined);
    assert.equal(docPageForPath(['benchmark'], ['benchmark', 'sla']), undefined);
    assert.equal(docPageForPath(['sla', 'max_p50_ttft_ms'], undefined), undefined);
  });
});

describe('the links the language server adds', () => {
  test('from dist/: a file URI of the page under docs/', () => {
    const links = new DocLinks(join(REPO, 'dist'));
    const href = pathToFileURL(join(REPO, 'docs', 'sla.md')).href;
    assert.equal(links.href('sla'), href);
    assert.equal(links.href(undefined), undefined);
    assert.equal(links.withLink('**max_p50_ttft_ms**', 'sla'), `**max_p50_ttft_ms**\n\n[SLA keys and what each limits](${href})`);
    assert.equal(links.withLink('text', undefined), 'text');
  });

  test('no page on disk: no link; parentheses in the path do not end the Markdown link', () => {
    const root = mkdtempSync(join(tmpdir(), 'autobench-docs-'));
    assert.equal(new DocLinks(join(root, 'dist')).href('sla'), undefined);
    assert.equal(new DocLinks(join(root, 'dist')).withLink('text', 'sla'), 'text');
    const ext = join(root, 'ext (1)');
    mkdirSync(join(ext, 'docs'), { recursive: true });
    writeFileSync(join(ext, 'docs', 'sla.md'), '# SLA keys\n');
    const md = new DocLinks(join(ext, 'dist')).withLink('text', 'sla');
    assert.match(md, /\]\(file:\/\/\S+\/ext%20%281%29\/docs\/sla\.md\)$/);
  });

  test('every linked page exists and ships: allow-listed in .vscodeignore and required by the packaging check', () => {
    const ignore = readFileSync(join(REPO, '.vscodeignore'), 'utf8').split('\n');
    const packaging = readFileSync(join(REPO, 'scripts', 'package-vsix.mjs'), 'utf8');
    for (const page of Object.keys(DOC_PAGES) as DocPage[]) {
      const file = `docs/${DOC_PAGES[page].file}`;
      assert.ok(existsSync(join(REPO, file)), file);
      assert.ok(ignore.includes(`!${file}`), `${file} is not allow-listed in .vscodeignore`);
      assert.ok(packaging.includes(`'${file}'`), `${file} is not required by scripts/package-vsix.mjs`);
    }
  });
});
