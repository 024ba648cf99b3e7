/**
 * Whether `work` finishes within `ms`; when it does not, it goes on unawaited (a process closing
 * within its grace period). A failure of `work` within `ms` is thrown.
 */
export function finishesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  const late = new Promise<false>((resolve) => setTimeout(resolve, ms, false).unref());
  return Promise.race([work.then(() => true), late]);
}
