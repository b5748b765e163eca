/**
 * Settings → Profile: where to mount the files over WebDAV (issue 19, docs/webdav.md) — the address
 * with the base URL, a copy button, and the short way in from Windows, macOS, Linux and rclone.
 * Shown only when the server serves WebDAV (`EnableWebDAV`, docs/api.md §5.3).
 */
import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { IconButton } from '../../components/IconButton';
import { config } from '../../config';
import { copyText } from '../../lib/clipboard';
import { useSession } from '../../stores/session';
import { toast } from '../../stores/toasts';
import './signin.css';

/** `<origin><BaseURL>/dav/`: the page's own origin, as the browser reached it. */
export function webdavAddress(origin: string, baseURL: string): string {
  return `${origin}${baseURL}/dav/`;
}

/**
 * One word for a POSIX shell, for the commands people paste: a user name or base URL with spaces,
 * `$(…)`, `;` or quotes must reach rclone and mount as text, never run as shell syntax.
 */
export function shellWord(value: string): string {
  if (/^[A-Za-z0-9@%+=:,./_-]+$/.test(value)) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

export function WebdavCard() {
  const { t } = useTranslation();
  const titleId = useId();
  const username = useSession((s) => s.user?.username) ?? '';
  if (!config.EnableWebDAV) return null;
  const address = webdavAddress(window.location.origin, config.BaseURL);
  const gnome = address.replace(/^http(s?):/, (_m, s: string) => `dav${s}:`);
  async function handleCopy() {
    try {
      await copyText(address);
      toast.success(t('settings.webdavMount.copied'));
    } catch (err) {
      toast.error(err instanceof Error ? err.message : String(err));
    }
  }
  return (
    <section className="card signin-card" aria-labelledby={titleId}>
      <h2 id={titleId} className="card__title">
        {t('settings.webdavMount.title')}
      </h2>
      <p className="muted">{t('settings.webdavMount.intro')}</p>
      <div className="signin-secret__row">
        <code className="signin-secret__value" dir="ltr" data-testid="webdav-address">
          {address}
        </code>
        <IconButton icon="copy" label={t('settings.webdavMount.copy')} onClick={() => void handleCopy()} />
      </div>
      <ul className="webdav-howto">
        <li>{t('settings.webdavMount.windows')}</li>
        <li>{t('settings.webdavMount.macos')}</li>
        <li>
          {t('settings.webdavMount.linux')} <code dir="ltr">{gnome}</code>
          {' · '}
          <code dir="ltr">sudo mount -t davfs {shellWord(address)} /mnt/coffer</code>
        </li>
        <li>
          {t('settings.webdavMount.rclone')}{' '}
          <code dir="ltr">
            rclone config create coffer webdav url={shellWord(address)} vendor=other user={shellWord(username)} pass=$(rclone obscure
            &apos;…&apos;)
          </code>
        </li>
      </ul>
      <p className="muted">{t('settings.webdavMount.appPassword')}</p>
    </section>
  );
}
