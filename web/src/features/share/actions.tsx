/** What the share prompt and the share management page both do with a link. */
import { useTranslation } from 'react-i18next';
import { deleteShare, shareLink, type Share } from '../../api/shares';
import { useFormat } from '../../i18n/useFormat';
import { copyText } from '../../lib/clipboard';
import { openPrompt } from '../../stores/prompts';
import { toast } from '../../stores/toasts';
import { PromptCard } from '../prompts/PromptCard';
import { expiryDate } from './share';

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Copies a link and says so (spec §8: "link copied", or the error). */
export async function copyLink(url: string, copied: string): Promise<void> {
  try {
    await copyText(url);
    toast.success(copied);
  } catch (err) {
    toast.error(message(err));
  }
}

/** The share-delete prompt. Resolves true to delete. */
function confirmShareDelete(): Promise<true | null> {
  return openPrompt<true>(function ShareDeletePrompt({ resolve, dismiss }) {
    const { t } = useTranslation();
    return (
      <PromptCard
        title={t('share.deleteTitle')}
        actions={
          <>
            <button type="button" className="button" data-autofocus onClick={dismiss}>
              {t('files.prompts.cancel')}
            </button>
            <button type="button" className="button button--danger" onClick={() => resolve(true)}>
              {t('files.actions.delete')}
            </button>
          </>
        }
      >
        <p>{t('share.deleteText')}</p>
      </PromptCard>
    );
  });
}

/**
 * Asks, then deletes the link; true when it is gone. The success message is spec §8's
 * "share deleted"; a failure is an error toast.
 */
export async function removeShare(share: Pick<Share, 'hash'>, deleted: string): Promise<boolean> {
  if (!(await confirmShareDelete())) return false;
  try {
    await deleteShare(share.hash);
    toast.success(deleted);
    return true;
  } catch (err) {
    toast.error(message(err));
    return false;
  }
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
