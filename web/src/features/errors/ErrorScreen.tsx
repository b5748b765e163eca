/** The error page body (docs/client.md §2 "Error page"): icon and message per code, a way back. */
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { ErrorView } from '../../components/ErrorView';
import type { IconName } from '../../components/Icon';
import { useSession } from '../../stores/session';
import type { ErrorCode } from './errorKind';

const VIEW = {
  0: { icon: 'offline', key: 'errors.connection' },
  403: { icon: 'lock', key: 'errors.forbidden' },
  404: { icon: 'compass', key: 'errors.notFound' },
  500: { icon: 'warning', key: 'errors.internal' },
} as const satisfies Record<ErrorCode, { icon: IconName; key: string }>;

export function ErrorScreen({ code }: { code: ErrorCode }) {
  const { t } = useTranslation();
  const signedIn = useSession((s) => s.user !== null);
  const view = VIEW[code];
  return (
    <ErrorView icon={view.icon} message={t(view.key)}>
      <Link className="button button--primary" to={signedIn ? '/files/' : '/login'}>
        {signedIn ? t('errors.home') : t('nav.login')}
      </Link>
    </ErrorView>
  );
}
