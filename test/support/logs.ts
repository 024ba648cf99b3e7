import { createLogger, type Logger } from '@cg/config';
import { onTestFailed } from 'vitest';

/**
 * What the gateway's processes in a test file logged since its last test ended: kept, not printed, so
 * a passing test prints nothing; test/support/setup.ts prints it under a test that failed. Bounded:
 * a test that logs on and on keeps its last lines.
 */
const lines: string[] = [];
const KEPT_LINES = 2_000;

export function keepLog(text: string): void {
  lines.push(text);
  if (lines.length > KEPT_LINES) lines.splice(0, lines.length - KEPT_LINES);
}

/** The lines kept since the last call, which forgets them. */
export function takeLog(): string {
  return lines.splice(0).join('');
}

/** A logger for the gateway's parts run in the test's process, into the kept log. */
export function testLogger(level = 'warn'): Logger {
  return createLogger({ level, name: 'test', destination: { write: keepLog } });
}

/** A drill's summary (what it did, what it saw), printed only under the test if it fails. */
export function tellOnFailure(summary: string): void {
  onTestFailed(() => {
    process.stdout.write(`${summary}\n`);
  });
}
