/** Video and audio in the browser's own players, straight from the file; subtitles beside a video as tracks; a video's poster is a frame the server took (ffmpeg). */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Icon } from '../../components/Icon';
import { config } from '../../config';
import { inlineUrl } from '../files/api';
import { bigPreviewUrl, subtitleUrl } from './fileScreen';
import { FileScreenToolbar } from './FileScreenToolbar';
import type { ViewerProps } from './ImageViewer';
import { PreviewCard } from './PreviewCard';
import { subtitleTrack } from './subtitles';

export function MediaViewer({ file, actions }: ViewerProps) {
  const { t } = useTranslation();
  const [failed, setFailed] = useState(false);
  const src = inlineUrl(file.path);
  if (failed) {
    return (
      <>
        <FileScreenToolbar actions={actions} keyboard />
        <PreviewCard file={file} message={t('preview.mediaError')} />
      </>
    );
  }
  if (file.type === 'audio') {
    return (
      <>
        <FileScreenToolbar actions={actions} keyboard />
        <div className="audio-stage">
          <Icon name="music" size={72} />
          <p className="audio-stage__name" dir="auto">
            {file.name}
          </p>
          {/* eslint-disable-next-line jsx-a11y/media-has-caption -- the user's own recording; no captions exist to offer */}
          <audio className="audio-stage__player" src={src} controls preload="metadata" onError={() => setFailed(true)} />
        </div>
      </>
    );
  }
  const tracks = (file.subtitles ?? []).map(subtitleTrack);
  return (
    <>
      <FileScreenToolbar actions={actions} keyboard />
      <div className="video-stage">
        {/* eslint-disable-next-line jsx-a11y/media-has-caption -- tracks are the subtitle files found beside the video, when there are any */}
        <video
          className="video-stage__player"
          src={src}
          controls
          preload="metadata"
          // A frame the server took with ffmpeg (docs/api.md §9); a failed poster is simply not shown.
          poster={config.EnableVideoThumbs ? bigPreviewUrl(file.path, file.modified) : undefined}
          playsInline
          aria-label={file.name}
          onError={() => setFailed(true)}
        >
          {tracks.map((track, i) => (
            <track
              key={track.path}
              kind="subtitles"
              src={subtitleUrl(track.path)}
              label={track.label}
              srcLang={track.language}
              default={i === 0}
            />
          ))}
        </video>
      </div>
    </>
  );
}
