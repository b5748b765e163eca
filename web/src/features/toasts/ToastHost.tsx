/** Toasts at the bottom centre (spec §2 "Notifications"). */
import { useTranslation } from 'react-i18next';
import { Icon } from '../../components/Icon';
import { dismissToast, useToasts } from '../../stores/toasts';

export function ToastHost() {
  const { t } = useTranslation();
  const toasts = useToasts((s) => s.toasts);
  if (toasts.length === 0) return null;
  return (
    <section className="toasts" aria-label={t('toasts.region')}>
      {toasts.map((toast) => (
        <div
          key={toast.id}
          className={`toast toast--${toast.kind}`}
          role={toast.kind === 'error' ? 'alert' : 'status'}
        >
          <Icon name={toast.kind === 'error' ? 'error' : 'check'} />
          <span className="toast__message">{toast.message}</span>
          <button
            type="button"
            className="icon-button icon-button--small"
            aria-label={t('toasts.dismiss')}
            onClick={() => dismissToast(toast.id)}
          >
            <Icon name="close" size={18} />
          </button>
        </div>
      ))}
    </section>
  );
}
