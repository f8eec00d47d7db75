// The summary panel's HTML: the webview page (bundle loaded from webview URIs, data posted after the
// "ready" handshake) and the self-contained page `autobench report --html` writes (bundle and data
// inlined). Both carry a strict CSP: nothing runs or styles the page without the per-load nonce.
import type { ReportModel } from '../core/results/report-model';

/** Resources of a webview: `cspSource` and the URIs come from `webview.cspSource` / `asWebviewUri`. */
export interface PanelResources {
  nonce: string;
  cspSource: string;
  scriptUri: string;
  styleUri: string;
}

/** The bundle files `autobench report --html` inlines (dist/webview/summary.js and .css). */
export interface InlineAssets {
  script: string;
  style: string;
}

/** Id of the JSON data block in a standalone page. */
export const DATA_ELEMENT_ID = 'autobench-report-data';

const NONCE_RE = /^[A-Za-z0-9+/=_-]{16,}$/;

function checkNonce(nonce: string): void {
  // A nonce is also spliced into attributes: refuse anything that is not base64-ish and long enough.
  if (!NONCE_RE.test(nonce)) throw new Error('CSP nonce must be at least 16 base64 characters (use createNonce())');
}

function attr(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function webviewCsp(nonce: string, cspSource: string): string {
  return [
    "default-src 'none'",
    `img-src ${cspSource} data: blob:`,
    `font-src ${cspSource}`,
    `style-src ${cspSource} 'nonce-${nonce}'`,
    `script-src 'nonce-${nonce}'`,
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

export function standaloneCsp(nonce: string): string {
  return ["default-src 'none'", 'img-src data: blob:', `style-src 'nonce-${nonce}'`, `script-src 'nonce-${nonce}'`, "base-uri 'none'", "form-action 'none'"].join('; ');
}

function shell(head: string, title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
${head}
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${attr(title)}</title>
</head>
<body>
<div id="app" aria-busy="true"><p class="loading">Loading the benchmark summary…</p></div>
${body}
</body>
</html>
`;
}

/** The webview page. The bundle posts `ready`; the host answers with `load`. */
export function summaryPanelHtml(r: PanelResources): string {
  checkNonce(r.nonce);
  const head = `<meta http-equiv="Content-Security-Policy" content="${attr(webviewCsp(r.nonce, r.cspSource))}">
<link rel="stylesheet" nonce="${r.nonce}" href="${attr(r.styleUri)}">`;
  return shell(head, 'Benchmark summary', `<script nonce="${r.nonce}" src="${attr(r.scriptUri)}"></script>`);
}

/** JSON that can sit inside a <script> element: no `</script>`, no `<!--`, no line separators. */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** Inlined code must not close its own element early. */
function inlineSafe(code: string, tag: 'script' | 'style'): string {
  // `<\/script` reads the same as `</script` inside the JS strings and regexes where it can occur.
  const out = code.replace(new RegExp(`</(${tag})`, 'gi'), '<\\/$1');
  // `<!--` followed by `<script` would put the HTML parser in "double escaped" script data, where
  // our own closing tag no longer ends the element. The bundle has neither; refuse one that does.
  if (tag === 'script' && /<!--[\s\S]*<script/i.test(out)) throw new Error('bundle contains "<!--" and "<script"; it cannot be inlined safely');
  return out;
}

/** A single file that opens in any browser: data, script and style inline, all under the nonce. */
export function standaloneReportHtml(model: ReportModel, assets: InlineAssets, nonce: string): string {
  checkNonce(nonce);
  const head = `<meta http-equiv="Content-Security-Policy" content="${attr(standaloneCsp(nonce))}">
<style nonce="${nonce}">${inlineSafe(assets.style, 'style')}</style>`;
  const body = `<script type="application/json" id="${DATA_ELEMENT_ID}">${jsonForScript(model)}</script>
<script nonce="${nonce}">${inlineSafe(assets.script, 'script')}</script>`;
  return shell(head, model.title, body);
}
