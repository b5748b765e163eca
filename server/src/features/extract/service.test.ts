import { describe, expect, it } from 'vitest';
import { Lz4ChecksumError } from './decompress.js';
import { telling } from './service.js';
import { BadRequest } from '../../http/errors.js';

describe('telling', () => {
  const premature = Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });

  it("names the decompressor's finding, not the tar side's premature close that came first (a damaged LZ4 block was reported as 'not in the format' under load)", () => {
    const checksum = new Lz4ChecksumError('a block checksum does not match');
    expect(telling([premature, checksum], premature)).toBe(checksum);
  });

  it('puts a refusal before a finding, and keeps the first when nothing says more', () => {
    const refused = new BadRequest('the archive holds a file without a name');
    const checksum = new Lz4ChecksumError('its content checksum does not match');
    expect(telling([checksum, refused], checksum)).toBe(refused);
    expect(telling([premature], premature)).toBe(premature);
  });
});
