/** A shared image, song or video shown on the share page (docs/api.md §15.4: the inline download). */
import { useTranslation } from 'react-i18next';
import { publicDownloadUrl } from '../../api/shares';
import type { PreviewKind } from './public';

export interface SharePreviewProps {
  hash: string;
  token?: string;
  item: { path: string; name: string };
  kind: PreviewKind;
}

export function SharePreview({ hash, token, item, kind }: SharePreviewProps) {
  const { t } = useTranslation();
  const src = publicDownloadUrl(hash, item.path, token, true);
  return (
    <section className="share-preview" aria-label={t('publicShare.preview', { name: item.name })}>
      {kind === 'image' ? <img src={src} alt={item.name} /> : null}
      {/* Native controls: play and pause, seek, volume, keyboard included. */}
      {kind === 'audio' ? (
        // eslint-disable-next-line jsx-a11y/media-has-caption -- no public subtitle endpoint (docs/api.md §15.4)
        <audio src={src} controls preload="metadata" aria-label={item.name} />
      ) : null}
      {kind === 'video' ? (
        // eslint-disable-next-line jsx-a11y/media-has-caption -- no public subtitle endpoint (docs/api.md §15.4)
        <video src={src} controls preload="metadata" aria-label={item.name} />
      ) : null}
    </section>
  );
}
