import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseEnv } from './env';
import { loadGatewayConfig } from './gateway';

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

  it('gives the gateway its documented defaults', () => {
    const config = loadGatewayConfig({ ENCRYPTION_KEY: 'x' });
    expect(config.PLATFORM_SLUG).toBe('fansly');
    expect(config.PORT).toBe(3000);
    expect(config.SYNC_WAIT_MS).toBe(25_000);
  });
});
