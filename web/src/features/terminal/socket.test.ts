import { describe, expect, it } from 'vitest';
import { commandUrl, endKind } from './socket';

describe('commandUrl', () => {
  const api = (base: string) => (path: string) => `${base}/api${path}`;

  it('uses ws on http and wss on https, with the folder encoded', () => {
    expect(commandUrl('/', { protocol: 'http:', host: '127.0.0.1:8080' }, api(''))).toBe(
      'ws://127.0.0.1:8080/api/command/',
    );
    expect(commandUrl('/my docs/#1/', { protocol: 'https:', host: 'files.example' }, api(''))).toBe(
      'wss://files.example/api/command/my%20docs/%231/',
    );
  });

  it('keeps the base URL', () => {
    expect(commandUrl('/a/', { protocol: 'http:', host: 'h' }, api('/coffer'))).toBe('ws://h/coffer/api/command/a/');
  });

  it('adds the leading slash a folder may lack', () => {
    expect(commandUrl('a/', { protocol: 'http:', host: 'h' }, api(''))).toBe('ws://h/api/command/a/');
  });
});

describe('endKind', () => {
  it('reads every close after an open socket as the end of the command', () => {
    expect(endKind(true, 1000)).toBe('done');
    expect(endKind(true, 1006)).toBe('done');
    expect(endKind(true, 1008)).toBe('refused');
    expect(endKind(true, 1011)).toBe('failed');
    expect(endKind(true, 1003)).toBe('failed');
  });

  it('tells a socket that never opened apart', () => {
    expect(endKind(false, 1006)).toBe('unreachable');
  });
});
