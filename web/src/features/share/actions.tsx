/** What the share prompt and the share management page both do with a link. */
import { useTranslation } from 'react-i18next';
import { deleteShare, shareLink, type Share } from '../../api/shares';
import { Icon } from '../../components/Icon';
import { IconButton } from '../../components/IconButton';
import { i18n } from '../../i18n';
import { useFormat } from '../../i18n/useFormat';
import { copyText } from '../../lib/clipboard';
import { toast } from '../../stores/toasts';
import { confirmDanger } from '../prompts/ConfirmPrompt';
import { expiryDate } from './share';

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Copies a link and says so (docs/client.md §8: "link copied", or the error). */
export async function copyLink(url: string, copied: string): Promise<void> {
  try {
    await copyText(url);
    toast.success(copied);
  } catch (err) {
    toast.error(message(err));
  }
}

/**
 * Asks, then deletes the link; true when it is gone. The success message is docs/client.md §8's
 * "share deleted"; a failure is an error toast.
 */
export async function removeShare(share: Pick<Share, 'hash'>, deleted: string): Promise<boolean> {
  const t = i18n.t.bind(i18n);
  const sure = await confirmDanger({
    title: t('share.deleteTitle'),
    text: t('share.deleteText'),
    cancel: t('files.prompts.cancel'),
    confirm: t('files.actions.delete'),
  });
  if (!sure) return false;
  try {
    await deleteShare(share.hash);
    toast.success(deleted);
    return true;
  } catch (err) {
    toast.error(message(err));
    return false;
  }
}

/** A link's copy and delete buttons; `onDeleted` runs once the link is gone. */
export function ShareLinkButtons({ share, onDeleted }: { share: Pick<Share, 'hash'>; onDeleted: () => void }) {
  const { t } = useTranslation();
  return (
    <>
      <IconButton
        icon="copy"
        label={t('share.copyLink')}
        onClick={() => void copyLink(shareLink(share.hash), t('share.copied'))}
      />
      <IconButton
        icon="trash"
        label={t('share.deleteLink')}
        onClick={() => void removeShare(share, t('share.deleted')).then((gone) => gone && onDeleted())}
      />
    </>
  );
}

/** "Permanent", or when the link stops working relative to now (full time in the tooltip). */
export function ShareExpiry({ share }: { share: Pick<Share, 'expire'> }) {
  const { t } = useTranslation();
  const format = useFormat();
  const date = expiryDate(share);
  if (!date) return <span className="share-expiry">{t('share.permanent')}</span>;
  return (
    <time className="share-expiry" dateTime={date.toISOString()} title={format.dateTime(date)}>
      {t('share.expires', { time: format.relative(date) })}
    </time>
  );
}

export { shareLink };

/** Marks an upload-only share (docs/api.md §23.1) in the share lists. */
export function UploadOnlyBadge() {
  const { t } = useTranslation();
  return (
    <span className="share-kind">
      <Icon name="upload" size={14} />
      {t('share.uploadOnlyBadge')}
    </span>
  );
}
