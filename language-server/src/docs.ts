// Links to our documentation pages, which ship beside the server bundle (dist/server.js -> docs/*.md): file URIs that
// open inside the installed extension, for diagnostics' code links and hovers. No page on disk (run from source): no link.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DOC_PAGES, type DocPage } from '../../src/core/editor/docs';

export class DocLinks {
  private readonly found = new Map<DocPage, string | undefined>();

  /** `dir`: the folder of the server bundle; the pages are in `../docs` from there. */
  constructor(private readonly dir: string) {}

  href(page: DocPage | undefined): string | undefined {
    if (page === undefined) return undefined;
    if (!this.found.has(page)) {
      const file = join(this.dir, '..', 'docs', DOC_PAGES[page].file);
      this.found.set(page, existsSync(file) ? pathToFileURL(file).href : undefined);
    }
    return this.found.get(page);
  }

  /** A hover's markdown with the page's link appended, when the page is there. */
  withLink(markdown: string, page: DocPage | undefined): string {
    const href = this.href(page);
    // Parentheses would end a Markdown link destination early; a file URL leaves them unescaped.
    return href && page ? `${markdown}\n\n[${DOC_PAGES[page].title}](${href.replace(/\(/g, '%28').replace(/\)/g, '%29')})` : markdown;
  }
}
