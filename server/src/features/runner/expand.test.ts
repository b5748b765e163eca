import { describe, expect, it } from 'vitest';
import { expandVariables, parseHookLine } from './expand.js';

const values: Record<string, string> = { FILE: '/srv/a b.txt', USERNAME: 'ann', EVIL: '$(rm -rf ~)', LOOP: '$FILE' };
const lookup = (n: string) => values[n];

describe('parseHookLine (docs/api.md §16.6)', () => {
  it('takes a trailing & as "do not wait" and removes it', () => {
    expect(parseHookLine('notify $FILE &')).toEqual({ line: 'notify $FILE', blocking: false });
    expect(parseHookLine('  notify&  ')).toEqual({ line: 'notify', blocking: false });
    expect(parseHookLine('notify $FILE')).toEqual({ line: 'notify $FILE', blocking: true });
    expect(parseHookLine('a & b')).toEqual({ line: 'a & b', blocking: true });
  });
});

describe('expandVariables (S72)', () => {
  it('replaces $NAME and ${NAME} inside one argument', () => {
    expect(expandVariables('$FILE', lookup)).toBe('/srv/a b.txt');
    expect(expandVariables('--user=${USERNAME}!', lookup)).toBe('--user=ann!');
    expect(expandVariables('$USERNAME$USERNAME', lookup)).toBe('annann');
  });

  it('turns unknown names into empty text', () => {
    expect(expandVariables('[$NOPE][${NOPE}]', lookup)).toBe('[][]');
  });

  it('leaves other dollar forms alone', () => {
    expect(expandVariables('$1 $ $(id) ${a-b} $-', lookup)).toBe('$1 $ $(id) ${a-b} $-');
  });

  it('never expands what a value contains', () => {
    expect(expandVariables('$EVIL', lookup)).toBe('$(rm -rf ~)');
    expect(expandVariables('$LOOP', lookup)).toBe('$FILE');
  });
});
