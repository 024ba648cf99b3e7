import { Value } from 'typebox/value';
import { describe, expect, it } from 'vitest';
import { NonBlank, Text, textProblem } from '../../src/common/schemas';

const CONTROL = 'must not contain control characters';
const UNPAIRED = 'has an unpaired bidirectional control';

describe('textProblem', () => {
  it('refuses every C0 control character and DEL; long text takes newline and tab only', () => {
    for (let code = 0; code < 0x20; code++) {
      const char = String.fromCharCode(code);
      expect(textProblem(`a${char}b`, 'text'), `U+${code.toString(16)}`).toBe(CONTROL);
      expect(textProblem(`a${char}b`, 'long-text'), `U+${code.toString(16)}`).toBe(
        char === '\n' || char === '\t' ? undefined : CONTROL,
      );
    }
    expect(textProblem('a\u007fb', 'text')).toBe(CONTROL);
    expect(textProblem('a\u007fb', 'long-text')).toBe(CONTROL);
    // The next control range (C1) and the letters around them are no concern here.
    expect(textProblem('\u0080 é ~', 'text')).toBeUndefined();
  });

  it('takes bidirectional controls closed by their own closer, properly nested, on the same line', () => {
    for (const value of [
      'a\u202bb\u202cc',
      '\u202a\u202dx\u202c\u202c',
      '\u2066a\u2069 \u2067b\u2069 \u2068c\u2069',
      '\u2067\u202ex\u202c\u2069',
      '\u202bone\u202c\n\u2066two\u2069',
      'zero\u200bwidth',
    ])
      expect(textProblem(value, 'long-text'), JSON.stringify(value)).toBeUndefined();
  });

  it('refuses a lone opener or closer, a closer of the other kind, crossed pairs and a pair split by a line', () => {
    for (const value of [
      '\u202e',
      'a\u202cb',
      '\u2069',
      '\u202ax\u2069',
      '\u2066x\u202c',
      '\u202b\u2067\u202c\u2069',
      '\u2069\u2066',
      '\u202bone\ntwo\u202c',
      '\u2066one\u2029two\u2069',
    ])
      expect(textProblem(value, 'long-text'), JSON.stringify(value)).toBe(UNPAIRED);
  });

  it('names control characters first when a value holds both', () => {
    expect(textProblem('\u202e\u0000', 'text')).toBe(CONTROL);
  });
});

describe('the text-field schemas', () => {
  it('are read by TypeBox as by the API: one line, or long text', () => {
    expect(Value.Check(Text(), 'a\nb')).toBe(false);
    expect(Value.Check(Text(undefined, { long: true }), 'a\n\tb')).toBe(true);
    expect(Value.Check(NonBlank(), 'a\u202eb')).toBe(false);
    expect(Value.Check(NonBlank(), 'a\u200bb')).toBe(true);
  });
});
