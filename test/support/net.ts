// Loopback helpers for tests: a port that refuses connections.
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

/** A port nothing listens on: bound once, then released. */
export async function refusedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}
