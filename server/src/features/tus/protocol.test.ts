import { describe, expect, it } from 'vitest';
import { HttpError } from '../../http/errors.js';
import { checkVersion, isPatchContentType, parseTusInt, parseUploadMetadata } from './protocol.js';

describe('parseTusInt (S50)', () => {
  it('accepts plain decimal digits', () => {
    expect(parseTusInt('0')).toEqual({ ok: true, value: 0 });
    expect(parseTusInt('10485760')).toEqual({ ok: true, value: 10485760 });
    expect(parseTusInt('007')).toEqual({ ok: true, value: 7 });
    expect(parseTusInt(String(Number.MAX_SAFE_INTEGER))).toEqual({ ok: true, value: Number.MAX_SAFE_INTEGER });
  });
  it('says missing for an absent header', () => {
    expect(parseTusInt(undefined)).toEqual({ ok: false, reason: 'missing' });
  });
  it('refuses signs, exponents, spaces, fractions, hex, other digits and repeated headers', () => {
    for (const bad of ['', '-1', '+1', '1e3', ' 1', '1 ', '1.0', '0x10', '١', '1_000', 'NaN', 'Infinity']) {
      expect(parseTusInt(bad), bad).toEqual({ ok: false, reason: 'malformed' });
    }
    expect(parseTusInt(['1', '2'])).toEqual({ ok: false, reason: 'malformed' });
  });
  it('says too-large above Number.MAX_SAFE_INTEGER', () => {
    expect(parseTusInt('9007199254740992')).toEqual({ ok: false, reason: 'too-large' });
    expect(parseTusInt('99999999999999999999999999')).toEqual({ ok: false, reason: 'too-large' });
    expect(parseTusInt('0000000000000000000000001')).toEqual({ ok: true, value: 1 });
  });
});

describe('checkVersion', () => {
  it('accepts 1.0.0 and no header, refuses anything else with 412 and Tus-Version', () => {
    expect(() => checkVersion({})).not.toThrow();
    expect(() => checkVersion({ 'tus-resumable': '1.0.0' })).not.toThrow();
    for (const v of ['0.2.2', '1.0', '1.0.0 ', '']) {
      try {
        checkVersion({ 'tus-resumable': v });
        expect.unreachable(v);
      } catch (err) {
        expect((err as HttpError).status).toBe(412);
        expect((err as HttpError).headers['Tus-Version']).toBe('1.0.0');
      }
    }
  });
});

describe('isPatchContentType', () => {
  it('wants exactly application/offset+octet-stream', () => {
    expect(isPatchContentType('application/offset+octet-stream')).toBe(true);
    expect(isPatchContentType('Application/Offset+Octet-Stream')).toBe(true);
    expect(isPatchContentType(undefined)).toBe(false);
    expect(isPatchContentType('application/octet-stream')).toBe(false);
    expect(isPatchContentType('application/offset+octet-stream; x=1')).toBe(false);
  });
});

describe('parseUploadMetadata (tus creation)', () => {
  const b64 = (t: string) => Buffer.from(t).toString('base64');
  it('reads key and base64 value pairs, a key without value as ""', () => {
    const m = parseUploadMetadata(`filename ${b64('ré sumé.pdf')},filetype ${b64('application/pdf')},flag`);
    expect(m.get('filename')).toBe('ré sumé.pdf');
    expect(m.get('filetype')).toBe('application/pdf');
    expect(m.get('flag')).toBe('');
    expect(parseUploadMetadata(undefined).size).toBe(0);
  });

  it('refuses repeated keys, bad base64 and values that are not UTF-8 with 400', () => {
    for (const bad of [`a ${b64('x')},a ${b64('y')}`, 'a !!!!', 'a YQ', `a ${b64('x')} extra`, 'a /w==', 'ké eA==']) {
      expect(() => parseUploadMetadata(bad), bad).toThrow(/Upload-Metadata/);
    }
  });
});
