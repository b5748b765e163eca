import { describe, expect, it } from 'vitest';
import { subtitleTrack } from './subtitles';

describe('subtitleTrack', () => {
  it('labels a track with its file name', () => {
    expect(subtitleTrack('/films/clip.srt')).toEqual({ path: '/films/clip.srt', label: 'clip.srt' });
  });

  it('reads the language from a ".<lang>.<ext>" ending', () => {
    expect(subtitleTrack('/films/subs/clip.de.vtt').language).toBe('de');
    expect(subtitleTrack('/films/clip.pt_BR.ass').language).toBe('pt-BR');
  });

  it('ignores endings that are no language tag', () => {
    expect(subtitleTrack('/films/clip.final.srt').language).toBeUndefined();
    expect(subtitleTrack('/films/a.1.srt').language).toBeUndefined();
  });
});
