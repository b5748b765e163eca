import { describe, expect, it } from 'vitest';
import { assToVtt, srtToVtt, subtitleKind, vttTime } from './convert.js';

describe('srtToVtt', () => {
  it('writes the header, dotted timestamps, ids and blank lines between cues', () => {
    const srt =
      '\ufeff1\r\n00:00:01,000 --> 00:00:02,500\r\nHello\r\nworld\r\n\r\n2\r\n00:01:00,042 --> 01:00:00,000\r\n<i>Bye</i>\r\n';
    expect(srtToVtt(srt)).toBe(
      'WEBVTT\n\n1\n00:00:01.000 --> 00:00:02.500\nHello\nworld\n\n2\n00:01:00.042 --> 01:00:00.000\n<i>Bye</i>\n\n',
    );
  });
  it('turns every <br> form into a newline', () => {
    const out = srtToVtt('1\n00:00:01,000 --> 00:00:02,000\na<br>b<BR/>c<br />d<br class="x">e\n');
    expect(out).toContain('\na\nb\nc\nd\ne\n');
  });
  it('accepts cues without ids and skips malformed blocks', () => {
    const out = srtToVtt('garbage block\n\n00:00:03,5 --> 00:00:04,25\nx\n\n7\nnot a timing\ny\n');
    expect(out).toBe('WEBVTT\n\n00:00:03.500 --> 00:00:04.250\nx\n\n');
  });
  it('never lets a cue text end the cue', () => {
    expect(srtToVtt('1\n00:00:01,000 --> 00:00:02,000\na --> b\n')).toContain('a --&gt; b');
  });
});

describe('assToVtt', () => {
  it('reads Dialogue lines by the Format order and strips override tags', () => {
    const ass = [
      '[Script Info]',
      'Title: x',
      '',
      '[Events]',
      'Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text',
      'Dialogue: 0,0:00:05.10,0:00:06.00,Default,,0,0,0,,{\\i1}Second{\\i0}, with comma',
      'Dialogue: 0,0:00:01.00,0:00:02.50,Default,,0,0,0,,First\\Nline',
    ].join('\n');
    expect(assToVtt(ass)).toBe(
      'WEBVTT\n\n00:00:01.000 --> 00:00:02.500\nFirst\nline\n\n00:00:05.100 --> 00:00:06.000\nSecond, with comma\n\n',
    );
  });
});

describe('subtitleKind', () => {
  it('accepts the four suffixes case-insensitively and converts by lowercase suffix', () => {
    expect(subtitleKind('a.srt')).toBe('srt');
    expect(subtitleKind('a.SRT')).toBe('passthrough');
    expect(subtitleKind('a.ssa')).toBe('ass');
    expect(subtitleKind('a.vtt')).toBe('vtt');
    expect(subtitleKind('a.txt')).toBeNull();
    expect(subtitleKind('srt')).toBeNull();
  });
  it('formats times', () => {
    expect(vttTime(3_723_004)).toBe('01:02:03.004');
  });
});
