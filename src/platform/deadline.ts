// A bound on a wait that no driver bounds: a store stopped (SIGSTOP, a frozen VM) keeps its
// connections open and never answers, and neither driver times out a query on an open connection.
/** `work`, or `failure()` thrown once `ms` have passed without an answer (`work` is left to settle alone). */
export async function withDeadline<T>(work: Promise<T>, ms: number, failure: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(failure()), ms);
  });
  // A late failure of the abandoned work must not surface as an unhandled rejection.
  work.catch(() => undefined);
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
