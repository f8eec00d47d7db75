// CSP nonces for the summary panel: 144 bits from the OS CSPRNG, never Math.random.
import { randomBytes } from 'node:crypto';

export function createNonce(): string {
  return randomBytes(18).toString('base64');
}
