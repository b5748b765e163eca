import { describe, expect, it } from 'vitest';
import { asciiFallback, contentDisposition, rfc5987 } from './disposition.js';

describe('contentDisposition (S61)', () => {
  it('builds both filename parameters for a plain name', () => {
    expect(contentDisposition('attachment', 'report.pdf')).toBe(
      `attachment; filename="report.pdf"; filename*=utf-8''report.pdf`,
    );
  });

  it('percent-encodes spaces, quotes, semicolons and UTF-8 bytes', () => {
    expect(rfc5987('a b";c.txt')).toBe('a%20b%22%3Bc.txt');
    expect(rfc5987('é€.txt')).toBe('%C3%A9%E2%82%AC.txt');
    expect(rfc5987("x$&+:=@'()*,!")).toBe('x%24%26%2B%3A%3D%40%27%28%29%2A%2C%21');
  });

  it('replaces non-ASCII, quotes, backslashes, semicolons, percent and controls in the fallback', () => {
    expect(asciiFallback('é"\\;%\r\n\tx.txt')).toBe('________x.txt');
  });

  it('never lets CR/LF or quotes through: the header is one printable ASCII line', () => {
    const hostile = 'evil"\r\nSet-Cookie: a=b; filename="x.html';
    const h = contentDisposition('inline', hostile);
    expect(h).toMatch(/^[\x20-\x7e]+$/);
    expect(h.split('"').length).toBe(3); // exactly the two quotes around the fallback
    expect(
      h.startsWith('inline; filename="evil___Set-Cookie: a=b_ filename=_x.html"; filename*=utf-8\'\''),
    ).toBe(true);
  });

  it('survives lone surrogates', () => {
    expect(contentDisposition('attachment', 'a\ud800b')).toMatch(/^[\x20-\x7e]+$/);
  });
});
