/**
 * The upload progress panel (docs/client.md §2): while uploads run, the speed per second, the time left
 * (hh:mm:ss or --:--:--), the percent done, bytes sent of the total, a bar per file, a collapse
 * toggle and abort (confirmed with upload.abortUpload). Failed files stay listed with the reason
 * until the panel is closed.
 */
import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { Icon } from '../../components/Icon';
import { IconButton } from '../../components/IconButton';
import { useFormat } from '../../i18n/useFormat';
import { uploadErrorText, type Translate } from './errorText';
import { formatRemaining, percentDone } from './speed';
import { abortUploads, dismissUploads, toggleUploadsCollapsed, useUploads, type UploadRow } from './store';
import { confirmAbort } from './UploadPrompts';
import './upload.css';

/** Rows the panel draws at most; the others are counted. */
const MAX_ROWS = 100;
const ORDER = { failed: 0, running: 1, queued: 2, done: 3 } as const;

export function UploadPanel() {
  const { t } = useTranslation();
  const format = useFormat();
  const titleId = useId();
  const listId = useId();
  const { rows, active, sent, total, speed, remaining, collapsed } = useUploads();
  if (rows.length === 0) return null;

  const failed = rows.filter((r) => r.status === 'failed').length;
  const finished = rows.filter((r) => r.status === 'done').length;
  const percent = percentDone(sent, total);
  const shown = [...rows].sort((a, b) => ORDER[a.status] - ORDER[b.status]).slice(0, MAX_ROWS);
  const percentText = new Intl.NumberFormat(format.locale, { style: 'percent' }).format(percent / 100);

  async function handleAbort() {
    if (await confirmAbort()) abortUploads();
  }

  return (
    <section className="upload-panel" aria-labelledby={titleId}>
      <div className="upload-panel__head">
        <h2 id={titleId} className="upload-panel__title">
          {active ? t('upload.heading') : t('upload.failedHeading')}
          <span className="upload-panel__count">
            {active ? t('upload.count', { done: finished, count: rows.length - failed }) : null}
          </span>
        </h2>
        {active ? (
          <button type="button" className="button upload-panel__abort" onClick={() => void handleAbort()}>
            {t('upload.abort')}
          </button>
        ) : (
          <IconButton icon="close" label={t('upload.close')} onClick={dismissUploads} />
        )}
        <IconButton
          className={collapsed ? 'upload-panel__toggle' : 'upload-panel__toggle upload-panel__toggle--open'}
          icon="chevronDown"
          label={t(collapsed ? 'upload.expand' : 'upload.collapse')}
          onClick={toggleUploadsCollapsed}
          aria-expanded={!collapsed}
          aria-controls={listId}
        />
      </div>
      {active ? (
        <dl className="upload-panel__stats">
          <div>
            <dt>{t('upload.speed')}</dt>
            <dd>{t('upload.perSecond', { size: format.size(speed ?? 0) })}</dd>
          </div>
          <div>
            <dt>{t('upload.remaining')}</dt>
            <dd className="upload-panel__eta">{formatRemaining(remaining)}</dd>
          </div>
          <div>
            <dt>{t('upload.percent')}</dt>
            <dd>{percentText}</dd>
          </div>
          <div>
            <dt>{t('upload.sent')}</dt>
            <dd>{t('upload.sentOf', { sent: format.size(sent), total: format.size(total) })}</dd>
          </div>
        </dl>
      ) : null}
      <ul id={listId} className="upload-panel__files" hidden={collapsed}>
        {shown.map((row) => (
          <UploadFileRow key={row.id} row={row} t={t} size={format.size} />
        ))}
        {rows.length > shown.length ? (
          <li className="upload-file upload-file--more">
            {t('upload.more', { count: rows.length - shown.length })}
          </li>
        ) : null}
      </ul>
    </section>
  );
}

function UploadFileRow({ row, t, size }: { row: UploadRow; t: Translate; size: (bytes: number) => string }) {
  const percent = row.status === 'done' ? 100 : percentDone(row.sent, row.size);
  const detail =
    row.status === 'failed' && row.error
      ? `${uploadErrorText(row.error, t)}${row.error.status ? ` (${row.error.status})` : ''}`
      : row.status === 'queued'
        ? t('upload.waiting')
        : t('upload.sentOf', { sent: size(row.sent), total: size(row.size) });
  return (
    <li className={`upload-file upload-file--${row.status}`}>
      <div className="upload-file__line">
        {row.status === 'failed' ? <Icon name="error" size={18} /> : null}
        {row.status === 'done' ? <Icon name="check" size={18} /> : null}
        <span className="upload-file__name" dir="auto" title={row.name}>
          {row.name}
        </span>
      </div>
      {row.status === 'failed' ? null : (
        <div
          className="upload-file__bar"
          role="progressbar"
          aria-label={row.name}
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={percent}
        >
          <div className="upload-file__fill" style={{ inlineSize: `${percent}%` }} />
        </div>
      )}
      <div className="upload-file__detail" role={row.status === 'failed' ? 'alert' : undefined}>
        {detail}
      </div>
    </li>
  );
}
