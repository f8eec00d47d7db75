// Waiting that a cancel cuts short: for polls (a server's health, a Slurm job's state).

/** Waits ms, or less when the signal aborts; leaves no listener behind either way. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((res) => {
    const done = (): void => {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      res();
    };
    const t = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
