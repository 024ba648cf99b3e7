import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createLogger, REDACT_PATHS } from '../src/logger';

/** A stream that keeps what is written to it. */
function sink(): { stream: Writable; text: () => string } {
  let written = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      written += chunk.toString();
      done();
    },
  });
  return { stream, text: () => written };
}

describe('log redaction', () => {
  it('hides secrets at the depths our objects carry them', () => {
    const out = sink();
    const log = pino({ redact: { paths: REDACT_PATHS, censor: '[redacted]' } }, out.stream);
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
      expect(out.text()).not.toContain(secret);
    }
    expect(out.text()).toContain('visible');
  });
});

describe('createLogger', () => {
  const secretFields = {
    password: 'hunter2-secret',
    input: { body: { twoFactorCode: '135790' } },
    req: { headers: { 'x-api-key': 'cgk_secretkey' } },
  };

  it('writes JSON lines by default, secrets redacted', () => {
    const out = sink();
    const log = createLogger({ level: 'info', name: 'api', destination: out.stream });
    log.child({ requestId: 'req-1' }).info({ ...secretFields, jobId: 'job_1' }, 'job submitted');
    const line = JSON.parse(out.text().trim());
    expect(line).toMatchObject({ name: 'api', requestId: 'req-1', jobId: 'job_1', msg: 'job submitted' });
    expect(line.password).toBe('[redacted]');
    for (const secret of ['hunter2-secret', '135790', 'cgk_secretkey'])
      expect(out.text()).not.toContain(secret);
  });

  it('with pretty, writes text for people, still redacted', () => {
    const out = sink();
    const log = createLogger({ level: 'debug', name: 'worker', pretty: true, destination: out.stream });
    log
      .child({ requestId: 'req-2', jobId: 'job_2' })
      .debug({ ...secretFields, endpoint: 'login' }, 'platform call');
    const text = out.text();
    // pino-pretty's layout: `[time] LEVEL (name): message`, then the fields one per line.
    expect(text).toMatch(/^\[\d{2}:\d{2}:\d{2}\.\d{3}\] DEBUG \(worker\): platform call\n/);
    expect(text).toMatch(/\n\s+requestId: "req-2"\n/);
    expect(text).toMatch(/\n\s+endpoint: "login"\n/);
    expect(text).toContain('[redacted]');
    expect(() => JSON.parse(text)).toThrow();
    // No colour codes: they are for a terminal, not a file or a pipe.
    expect(text).not.toContain('\u001b[');
    for (const secret of ['hunter2-secret', '135790', 'cgk_secretkey']) expect(text).not.toContain(secret);
  });

  it('leaves lines below its level out, pretty or not', () => {
    for (const pretty of [false, true]) {
      const out = sink();
      const log = createLogger({ level: 'info', name: 'api', pretty, destination: out.stream });
      log.debug('not written');
      log.info('written');
      expect(out.text()).not.toContain('not written');
      expect(out.text()).toContain('written');
    }
  });
});
