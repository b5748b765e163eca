/**
 * The box of a shared file or folder (docs/client.md §2 "Public share page"): name, last modified
 * (relative, full time in the tooltip), size or item counts, the download link, open-in-new for
 * files, and a QR code of the download link.
 */
import { QRCodeSVG } from 'qrcode.react';
import { useTranslation } from 'react-i18next';
import { publicDownloadUrl, type PublicResource } from '../../api/shares';
import { Icon } from '../../components/Icon';
import { useFormat } from '../../i18n/useFormat';
import { QR_SIZE_FILE, QR_SIZE_FOLDER } from '../../lib/limits';

export function ShareBox({ hash, item, token }: { hash: string; item: PublicResource; token?: string }) {
  const { t } = useTranslation();
  const format = useFormat();
  const download = publicDownloadUrl(hash, item.path, token);
  const date = new Date(item.modified);
  const validDate = !Number.isNaN(date.getTime());
  return (
    <section className="share-box" aria-label={t('publicShare.details')}>
      <div className="share-box__head">
        <span className="share-box__icon" data-dir={item.isDir}>
          <Icon name={item.isDir ? 'folder' : 'file'} size={40} />
        </span>
        <h2 className="share-box__name" dir="auto">
          {item.name}
        </h2>
      </div>
      <dl className="share-box__facts">
        {validDate ? (
          <div>
            <dt>{t('files.modified')}</dt>
            <dd>
              <time dateTime={item.modified} title={format.dateTime(date)}>
                {format.relative(date)}
              </time>
            </dd>
          </div>
        ) : null}
        <div>
          <dt>{item.isDir ? t('info.contents') : t('files.size')}</dt>
          <dd>
            {item.isDir
              ? t('info.counts', { dirs: item.numDirs ?? 0, files: item.numFiles ?? 0 })
              : format.size(item.size)}
          </dd>
        </div>
      </dl>
      <div className="share-box__actions">
        <a className="button button--primary" href={download} download>
          <Icon name="download" size={18} />
          {t('files.actions.download')}
        </a>
        {item.isDir ? null : (
          <a
            className="button"
            href={publicDownloadUrl(hash, item.path, token, true)}
            target="_blank"
            rel="noreferrer"
          >
            <Icon name="open" size={18} />
            {t('publicShare.open')}
          </a>
        )}
      </div>
      <div className="share-box__qr" role="img" aria-label={t('publicShare.qr')}>
        {/* docs/client.md §9: level M; 100 px for a folder, 200 px for a file. Dark on white in every theme. */}
        <QRCodeSVG
          value={new URL(download, window.location.href).href}
          size={item.isDir ? QR_SIZE_FOLDER : QR_SIZE_FILE}
          level="M"
          marginSize={2}
          bgColor="#ffffff"
          fgColor="#000000"
        />
      </div>
    </section>
  );
}
