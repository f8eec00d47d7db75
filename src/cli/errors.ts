// The CLI's own failure types: a message for the user and an exit code, never a stack trace.
// Exit 2: the command line is wrong (usage); exit 1: the environment is (a file, a folder, a server).

export class UsageError extends Error {
  constructor(message: string, readonly exitCode = 2) {
    super(message);
  }
}

/** A file that cannot be read or written, a server that cannot be reached: exit 1. */
export class EnvironmentError extends UsageError {
  constructor(message: string) {
    super(message, 1);
  }
}

/** A node error's code (ENOENT, EACCES...) or its message, for a one-line cause. */
export function errnoText(e: unknown): string {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  const known: Record<string, string> = {
    ENOENT: 'no such file or folder',
    EACCES: 'permission denied',
    EPERM: 'operation not permitted',
    EROFS: 'read-only file system',
    ENOTDIR: 'a part of the path is a file, not a folder',
    EISDIR: 'it is a folder',
    ENOSPC: 'no space left on the device',
    EEXIST: 'it already exists',
  };
  if (code && known[code]) return `${known[code]} (${code})`;
  return code ?? (e instanceof Error ? e.message : String(e));
}
