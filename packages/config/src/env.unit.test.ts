import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseEnv, startupProblem } from './env';
import { GatewayEnv, loadGatewayConfig } from './gateway';

describe('parseEnv', () => {
  const schema = Type.Object({ PORT: Type.Integer({ default: 3000 }), KEY: Type.String({ minLength: 1 }) });

  it('applies defaults and converts strings', () => {
    expect(parseEnv(schema, { PORT: '8080', KEY: 'k' })).toEqual({ PORT: 8080, KEY: 'k' });
    expect(parseEnv(schema, { KEY: 'k' })).toEqual({ PORT: 3000, KEY: 'k' });
  });

  it('names the bad variable', () => {
    expect(() => parseEnv(schema, { PORT: 'eighty', KEY: 'k' })).toThrow(/PORT/);
    expect(() => parseEnv(schema, { PORT: '1' })).toThrow(ConfigError);
    expect(() => parseEnv(schema, { PORT: '1' })).toThrow(/KEY/);
  });

  it('says which variable is missing, and lists the choices of one that has them', () => {
    expect(() => loadGatewayConfig({})).toThrow('missing environment variable ENCRYPTION_KEY');
    expect(() => loadGatewayConfig({ ENCRYPTION_KEY: 'x', LOG_LEVEL: 'loud' })).toThrow(
      'invalid environment variable LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent',
    );
    expect(() => loadGatewayConfig({ ENCRYPTION_KEY: 'x', PORT: '70000' })).toThrow(
      'invalid environment variable PORT: must be <= 65535',
    );
  });

  it('turns a bad setting into one line for the process to print, and nothing else', () => {
    expect(startupProblem(new ConfigError('invalid environment variable PORT: x'))).toBe(
      'invalid environment variable PORT: x',
    );
    const keyring = Object.assign(new Error('encryption key k1 must be 32 bytes of base64'), {
      name: 'SecretsError',
    });
    expect(startupProblem(keyring)).toBe(
      'invalid environment variable ENCRYPTION_KEY: encryption key k1 must be 32 bytes of base64',
    );
    expect(startupProblem(new Error('connect ECONNREFUSED'))).toBeUndefined();
  });

  it('gives the gateway its documented defaults', () => {
    const config = loadGatewayConfig({ ENCRYPTION_KEY: 'x' });
    expect(config.PLATFORM_SLUG).toBe('fansly');
    expect(config.PORT).toBe(3000);
    expect(config.SYNC_WAIT_MS).toBe(25_000);
  });
});

describe('.env.example', () => {
  it('lists every setting of the gateway, with its default', () => {
    const example = readFileSync(resolve(import.meta.dirname, '../../../.env.example'), 'utf8');
    for (const [name, schema] of Object.entries(GatewayEnv.properties)) {
      // A setting without a default may be a comment with an example value.
      const line = new RegExp(`^(# )?${name}=(\\S*)`, 'm').exec(example);
      expect(line, `${name} in .env.example`).not.toBeNull();
      const fallback = (schema as { default?: unknown }).default;
      if (line?.[1] === undefined)
        expect(line?.[2], `${name}'s default`).toBe(fallback === undefined ? '' : String(fallback));
      else expect(fallback, `${name} has a default, so it is not commented out`).toBeUndefined();
    }
  });
});
