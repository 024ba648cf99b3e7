import { afterEach } from 'vitest';
import { takeLog } from './logs';

// Every test file: what its gateway processes logged is printed under a test that failed, and
// forgotten after one that passed.
afterEach((context) => {
  const log = takeLog();
  if (context.task.result?.state === 'fail' && log !== '') process.stderr.write(`gateway log:\n${log}`);
});
