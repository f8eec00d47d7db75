// stderr for a run that knows secret values: every write passes through the exact-value and by-name redactor first, so no text the CLI or the runner prints can show one.
import { makeRedactor } from '../exec/log-sink';

/** A stream that writes to `inner` with the values (and token-shaped strings) replaced; isTTY and columns stay the inner's. */
export function redactingStream(inner: NodeJS.WriteStream, values: readonly string[]): NodeJS.WriteStream {
  const redact = makeRedactor(values);
  return new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === 'write') {
        return (chunk: unknown, ...rest: unknown[]) => (target.write as (c: unknown, ...r: unknown[]) => boolean)(typeof chunk === 'string' ? redact(chunk) : Buffer.isBuffer(chunk) ? redact(chunk.toString('utf8')) : chunk, ...rest);
      }
      const v: unknown = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}
