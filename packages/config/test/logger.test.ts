import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { REDACT_PATHS } from '../src/logger';

describe('log redaction', () => {
  it('hides secrets at the depths our objects carry them', () => {
    let written = '';
    const sink = new Writable({
      write(chunk, _encoding, done) {
        written += chunk.toString();
        done();
      },
    });
    const log = pino({ redact: { paths: REDACT_PATHS, censor: '[redacted]' } }, sink);
    log.info(
      {
        password: 'p0',
        body: { password: 'p1', twofa: { code: '424242', token: 't1' } },
        input: { body: { password: 'p2', twoFactorCode: '135790' } },
        session: { token: 'tok' },
        req: { headers: { 'x-api-key': 'cgk_secret' } },
        keep: 'visible',
      },
      'x',
    );
    for (const secret of ['p0', 'p1', 'p2', '424242', '135790', 't1', 'tok', 'cgk_secret']) {
      expect(written).not.toContain(secret);
    }
    expect(written).toContain('visible');
  });
});
