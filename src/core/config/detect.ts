// Tells whether a YAML text is an autobench config (cookbook or plan) without parsing it.

/** True for text with a `# autobench` modeline, or top-level `frameworks:` plus `schema_version:`/`sla:`/`version_manifest:`. */
export function looksLikeConfig(text: string): boolean {
  const head = text.slice(0, 4096);
  if (/^#\s*autobench\b/m.test(head)) return true;
  return /^frameworks\s*:/m.test(text) && /^(schema_version|sla|version_manifest)\s*:/m.test(text);
}
