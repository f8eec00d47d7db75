// The docs stay true: docs/CLI.md is the CLI's own --help, README.md stays short, and relative links lead to files.
import { describe, test, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { REPO } from '../support/fixtures';

const CLI = join(REPO, 'dist', 'cli.js');
const SCRIPT = join(REPO, 'scripts', 'cli-reference.mjs');
const README = join(REPO, 'README.md');
/** The README and the docs pages split out of it (the older docs pages are checked by their own authors). */
const PAGES = [
  README,
  ...['RUNNER', 'SLURM', 'VSCODE', 'TOOLS', 'SIMULATOR', 'DEVELOPMENT', 'CLI'].map((n) => join(REPO, 'docs', `${n}.md`)),
];

/**
 * The relative link targets of a Markdown text, outside code: inline links `[text](target)` and reference
 * definitions `[id]: target`, and images `![alt](src)` (the README's screenshots, `npm run docs:images`), without
 * their #anchor. http(s), mailto and same-page `#anchor` links are left out.
 */
function relativeLinks(markdown: string): string[] {
  const prose = markdown
    .replace(/^(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1[ \t]*$/gm, '')
    .replace(/(`+)[\s\S]*?\1/g, (span) => (span.includes('\n\n') ? span : 'code'));
  const targets: string[] = [];
  for (const m of prose.matchAll(/(!?)\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    targets.push(m[2] ?? '');
  }
  for (const m of prose.matchAll(/^ {0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?/gm)) targets.push(m[1] ?? '');
  return targets
    .filter((t) => t !== '' && !/^(https?:|mailto:|#)/i.test(t))
    .map((t) => decodeURI(t.replace(/#.*$/, '')));
}

describe('docs', () => {
  before(() => {
    assert.ok(existsSync(CLI), 'dist/cli.js missing: run node scripts/build.mjs (npm test builds it first)');
  });

  test('docs/CLI.md is the CLI\'s own help (node scripts/cli-reference.mjs --check)', () => {
    const r = spawnSync(process.execPath, [SCRIPT, '--check'], { cwd: REPO, encoding: 'utf8' });
    assert.equal(r.status, 0, `docs/CLI.md is out of date; run npm run docs:cli\n${r.stdout}${r.stderr}`);
  });

  test('README.md is at most 8192 bytes', () => {
    const size = statSync(README).size;
    assert.ok(size <= 8192, `README.md is ${size} bytes; move detail into docs/ (limit 8192)`);
  });

  test('every relative link in README.md and the docs pages leads to a file that exists', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const page of PAGES) {
      assert.ok(existsSync(page), `${relative(REPO, page)} is missing`);
      for (const target of relativeLinks(readFileSync(page, 'utf8'))) {
        checked++;
        if (!existsSync(resolve(dirname(page), target))) broken.push(`${relative(REPO, page)}: ${target}`);
      }
    }
    assert.deepEqual(broken, [], `links to files that do not exist:\n${broken.join('\n')}`);
    assert.ok(checked >= 20, `only ${checked} relative links found: the link pattern no longer matches`);
  });

  test('the link reader finds links and images, leaves out code, anchors and web addresses', () => {
    const md = [
      'See [the runner](docs/RUNNER.md#secrets) and [web](https://example.com/x.md).',
      '![picture](docs/images/x.png) [same page](#top) [ref]: docs/SLURM.md',
      '[def]: docs/TOOLS.md',
      '`[not a link](nowhere.md)`',
      '```md',
      '[not a link either](nowhere.md)',
      '```',
      '[`sla.md`](sla.md)',
    ].join('\n');
    assert.deepEqual(relativeLinks(md), ['docs/RUNNER.md', 'docs/images/x.png', 'sla.md', 'docs/TOOLS.md']);
  });
});
