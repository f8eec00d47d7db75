// The CLI's own failure type: a message for the user and an exit code, never a stack trace.
export class UsageError extends Error {
  constructor(message: string, readonly exitCode = 2) {
    super(message);
  }
}
