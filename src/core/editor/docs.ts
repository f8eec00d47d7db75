// Which page of our own documentation (docs/*.md, shipped inside the extension) explains a finding or a hovered key.
import type { YamlPath } from '../config/yaml-doc';

/** A page under docs/, and the link text a diagnostic or hover shows for it. */
export const DOC_PAGES = {
  sla: { file: 'sla.md', title: 'SLA keys and what each limits' },
} as const;

export type DocPage = keyof typeof DOC_PAGES;

const BY_CODE: Readonly<Record<string, DocPage>> = { 'sla-deprecated': 'sla', 'sla-unknown': 'sla', 'sla-mapping': 'sla' };

/** The page that explains a finding, by its code. */
export function docPageForFinding(code: string): DocPage | undefined {
  return Object.hasOwn(BY_CODE, code) ? BY_CODE[code] : undefined;
}

/** The page that explains a key or value at `path`: the SLA block (wherever the config keeps it) and what is inside. */
export function docPageForPath(path: YamlPath, slaPath: YamlPath | undefined): DocPage | undefined {
  if (!slaPath || path.length < slaPath.length) return undefined;
  return slaPath.every((seg, i) => path[i] === seg) ? 'sla' : undefined;
}
