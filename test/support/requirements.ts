// When a suite may skip for a missing system tool: only outside CI, and always with the reason; under CI=true a missing tool is a failure (provisioning broke), never a silent skip.

/** The `skip` option for a suite that needs a tool: the reason it is missing, or false (run it) — always false under CI. */
export function skipWhenMissing(missing: string | undefined): string | false {
  if (missing === undefined || process.env.CI) return false;
  return `${missing} — skipped outside CI; npm test installs it (scripts/provision.mjs)`;
}
