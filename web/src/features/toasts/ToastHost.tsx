/** Toasts at the bottom centre (docs/client.md §2 "Notifications"); panels under them keep clear (clearance.ts). */
import { useTranslation } from 'react-i18next';
import { Icon } from '../../components/Icon';
import { IconButton } from '../../components/IconButton';
import { externalUrl } from '../../config';
import { dismissToast, useToasts } from '../../stores/toasts';
import { TOASTS_ID } from './clearance';

export function ToastHost() {
  const { t } = useTranslation();
  const toasts = useToasts((s) => s.toasts);
  // docs/client.md §2 "Notifications": an error toast offers "Report issue" when reporting is
  // allowed (an issue tracker is configured and branding allows external links).
  const report = externalUrl('IssuesURL');
  if (toasts.length === 0) return null;
  return (
    <section id={TOASTS_ID} className="toasts" aria-label={t('toasts.region')}>
      {toasts.map((toast) => (
        <div
          key={toast.id}
          className={`toast toast--${toast.kind}`}
          role={toast.kind === 'error' ? 'alert' : 'status'}
        >
          <Icon name={toast.kind === 'error' ? 'error' : 'check'} />
          <span className="toast__message">{toast.message}</span>
          {toast.action ? (
            <button
              type="button"
              className="toast__action"
              onClick={() => {
                dismissToast(toast.id);
                toast.action?.run();
              }}
            >
              {toast.action.label}
            </button>
          ) : null}
          {toast.kind === 'error' && report ? (
            <a className="toast__report" href={report} target="_blank" rel="noopener noreferrer">
              {t('toasts.report')}
            </a>
          ) : null}
          <IconButton small icon="close" label={t('toasts.dismiss')} onClick={() => dismissToast(toast.id)} />
        </div>
      ))}
    </section>
  );
}
