/**
 * A file without an in-page preview (or whose preview failed): name, size, modification time,
 * type and a download button.
 */
import { useTranslation } from 'react-i18next';
import type { Resource } from '../../api/resources';
import { Icon, type IconName } from '../../components/Icon';
import { useFormat } from '../../i18n/useFormat';
import { triggerDownload } from '../../lib/download';
import { MAX_TEXT_BYTES } from '../../lib/limits';
import { useSession } from '../../stores/session';
import { rawUrl } from '../files/api';

const TYPE_KEYS = {
  image: 'info.types.image',
  video: 'info.types.video',
  audio: 'info.types.audio',
  pdf: 'info.types.pdf',
  text: 'info.types.text',
  textImmutable: 'info.types.textImmutable',
  blob: 'info.types.blob',
  invalid_link: 'info.types.invalid_link',
} as const;

type KnownType = keyof typeof TYPE_KEYS;
const isKnownType = (type: string): type is KnownType => type in TYPE_KEYS;

const TYPE_ICONS: Partial<Record<KnownType, IconName>> = { audio: 'music', invalid_link: 'warning' };

export function PreviewCard({ file, message }: { file: Resource; message?: string }) {
  const { t } = useTranslation();
  const format = useFormat();
  const canDownload = useSession((s) => s.user?.perm.download ?? false);
  const date = new Date(Date.parse(file.modified));
  // Past the text limit the server stops looking inside and says blob: the content is unknown.
  const typeName = t(
    isKnownType(file.type) && !(file.type === 'blob' && file.size > MAX_TEXT_BYTES)
      ? TYPE_KEYS[file.type]
      : 'preview.otherType',
  );
  return (
    <section className="preview-card" aria-labelledby="preview-card-name">
      <Icon name={(isKnownType(file.type) && TYPE_ICONS[file.type]) || 'file'} size={56} />
      <h2 id="preview-card-name" className="preview-card__name" dir="auto">
        {file.name}
      </h2>
      <p className="preview-card__message">{message ?? t('preview.noPreview')}</p>
      <dl className="preview-card__facts">
        <div>
          <dt>{t('files.size')}</dt>
          <dd>{format.size(file.size)}</dd>
        </div>
        <div>
          <dt>{t('files.modified')}</dt>
          <dd>
            <time dateTime={file.modified}>{format.dateTime(date)}</time>
          </dd>
        </div>
        <div>
          <dt>{t('info.type')}</dt>
          <dd>{typeName}</dd>
        </div>
      </dl>
      {canDownload ? (
        <button
          type="button"
          className="button button--primary"
          onClick={() => triggerDownload(rawUrl(file.path))}
        >
          <Icon name="download" size={20} />
          {t('files.actions.download')}
        </button>
      ) : null}
    </section>
  );
}
