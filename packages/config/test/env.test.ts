import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Type } from 'typebox';
import { afterEach, describe, expect, it } from 'vitest';
import { DOTENV_FILE, loadDotEnv } from '../src/dotenv';
import { ConfigError, parseEnv, startupProblem } from '../src/env';
import { GatewayEnv, loadGatewayConfig } from '../src/gateway';

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
  it('lists every setting of the gateway, commented out, with its default', () => {
    const example = readFileSync(resolve(import.meta.dirname, '../../../.env.example'), 'utf8');
    for (const [name, schema] of Object.entries(GatewayEnv.properties)) {
      const line = new RegExp(`^# ${name}=(\\S*)`, 'm').exec(example);
      expect(line, `${name} in .env.example`).not.toBeNull();
      // A setting without a default shows an example value, or none.
      const fallback = (schema as { default?: unknown }).default;
      if (fallback !== undefined) expect(line?.[1], `${name}'s default`).toBe(String(fallback));
    }
    expect(example).not.toMatch(/^[A-Z][A-Z0-9_]*=/m);
  });
});

describe('loadDotEnv', () => {
  const dirs: string[] = [];
  const touched = new Map<string, string | undefined>();
  /** Sets (or, with undefined, removes) a variable for one test; afterEach puts it back. */
  const setEnv = (name: string, value: string | undefined) => {
    if (!touched.has(name)) touched.set(name, process.env[name]);
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  };
  const dotenv = (text: string) => {
    const dir = mkdtempSync(join(tmpdir(), 'cg-dotenv-'));
    dirs.push(dir);
    const file = join(dir, '.env');
    writeFileSync(file, text);
    return file;
  };
  afterEach(() => {
    for (const [name, value] of touched) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    touched.clear();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('sets the variables of the file that the environment does not have, and only those', () => {
    for (const name of ['CG_T_NEW', 'CG_T_SET', 'CG_T_EMPTY_SET', 'CG_T_QUOTED', 'CG_T_COMMENTED'])
      setEnv(name, undefined);
    setEnv('CG_T_SET', 'from the environment');
    setEnv('CG_T_EMPTY_SET', '');
    const file = dotenv(
      [
        '# a comment',
        'CG_T_NEW=from the file',
        'CG_T_SET=from the file',
        'CG_T_EMPTY_SET=from the file',
        'CG_T_QUOTED="a # b"',
        // Last, without a newline: Node 20's parser takes it for a variable named `# CG_T_COMMENTED`.
        '# CG_T_COMMENTED=x',
      ].join('\n'),
    );
    expect(loadDotEnv(file)).toEqual(['CG_T_NEW', 'CG_T_QUOTED']);
    expect(process.env.CG_T_NEW).toBe('from the file');
    // Node's loader never overrides a variable already set, not even an empty one.
    expect(process.env.CG_T_SET).toBe('from the environment');
    expect(process.env.CG_T_EMPTY_SET).toBe('');
    expect(process.env.CG_T_QUOTED).toBe('a # b');
    expect(process.env.CG_T_COMMENTED).toBeUndefined();
    expect(Object.keys(process.env).filter((name) => name.startsWith('#'))).toEqual([]);
  });

  it('sets nothing for an empty value', () => {
    for (const name of ['ENCRYPTION_KEY', 'PORT', 'CG_T_BLANK']) setEnv(name, undefined);
    const file = dotenv('ENCRYPTION_KEY=\nCG_T_BLANK=\nPORT=3001\n');
    expect(loadDotEnv(file)).toEqual(['PORT']);
    expect(process.env.PORT).toBe('3001');
    for (const name of ['ENCRYPTION_KEY', 'CG_T_BLANK']) expect(process.env[name], name).toBeUndefined();
  });

  it('takes a missing file as no file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cg-dotenv-'));
    dirs.push(dir);
    expect(loadDotEnv(join(dir, '.env'))).toEqual([]);
  });

  it("reads the repository root's .env, except under the test runner", () => {
    expect(DOTENV_FILE).toBe(resolve(import.meta.dirname, '../../../.env'));
    expect(process.env.VITEST).toBeDefined();
    expect(loadDotEnv()).toEqual([]);
  });

  it('sets nothing from a copy of .env.example, and misreads none of its lines', () => {
    const file = resolve(import.meta.dirname, '../../../.env.example');
    const names: string[] = [];
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      const example = /^# ([A-Z][A-Z0-9_]*)=/.exec(line);
      if (example?.[1] !== undefined) names.push(example[1]);
      expect(line === '' || line.startsWith('#'), line).toBe(true);
    }
    expect(names).toEqual(expect.arrayContaining(['EGRESS_PROXIES', 'PUBLIC_URL', 'ENCRYPTION_KEY']));
    for (const name of names) setEnv(name, undefined);
    expect(loadDotEnv(file)).toEqual([]);
    for (const name of names) expect(process.env[name], name).toBeUndefined();
  });
});
