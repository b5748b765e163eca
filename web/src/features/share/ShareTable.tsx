/**
 * Share management (docs/client.md §2 "Share management"): every link of the user (of everyone for an
 * admin) with its path, duration, owner for admins, copy and delete; a lonely message when none.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { queryKeys } from '../../api/queryKeys';
import { listShares } from '../../api/shares';
import { listUsers } from '../../api/users';
import { Icon } from '../../components/Icon';
import { Spinner } from '../../components/Spinner';
import { filesRoute } from '../../lib/paths';
import { useSession } from '../../stores/session';
import { ErrorScreen } from '../errors/ErrorScreen';
import { errorCodeOf } from '../errors/errorKind';
import { ShareExpiry, ShareLinkButtons, UploadOnlyBadge } from './actions';
import { sortShares } from './share';
import './share.css';

export function ShareTable() {
  const { t } = useTranslation();
  const client = useQueryClient();
  const me = useSession((s) => s.user);
  const admin = me?.perm.admin ?? false;
  const shares = useQuery({
    queryKey: queryKeys.shares(),
    queryFn: ({ signal }) => listShares(signal),
    select: sortShares,
  });
  // The server sends owner ids only; admins see names by joining with the user list (docs/api.md §14.1).
  const users = useQuery({
    queryKey: queryKeys.users(),
    queryFn: ({ signal }) => listUsers(signal),
    enabled: admin,
  });
  const names = new Map((users.data ?? []).map((u) => [u.id, u.username]));

  const reload = () => client.invalidateQueries({ queryKey: queryKeys.shares() });

  if (shares.isPending) return <Spinner label={t('common.loading')} />;
  if (shares.isError) return <ErrorScreen code={errorCodeOf(shares.error)} />;
  if (shares.data.length === 0) {
    return (
      <p className="listing__lonely">
        <Icon name="share" size={40} />
        {t('shares.lonely')}
      </p>
    );
  }
  return (
    <table className="share-table">
      <thead>
        <tr>
          <th scope="col">{t('shares.path')}</th>
          <th scope="col">{t('shares.duration')}</th>
          {admin ? <th scope="col">{t('shares.owner')}</th> : null}
          <th scope="col">
            <span className="visually-hidden">{t('shares.actions')}</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {shares.data.map((share) => (
          <tr key={share.hash}>
            <td className="share-table__path" dir="auto">
              {/* Another owner's path is relative to their scope, not a place in ours. */}
              {share.userID === me?.id ? <Link to={filesRoute(share.path)}>{share.path}</Link> : share.path}
              {share.kind === 'upload' ? <UploadOnlyBadge /> : null}
              {share.hasPassword ? (
                <span className="share-table__lock" title={t('share.protected')}>
                  <Icon name="lock" size={14} label={t('share.protected')} />
                </span>
              ) : null}
            </td>
            <td className="share-table__duration">
              <ShareExpiry share={share} />
            </td>
            {admin ? (
              <td className="share-table__owner" dir="auto">
                {names.get(share.userID) ?? `#${share.userID}`}
              </td>
            ) : null}
            <td className="share-table__actions">
              <ShareLinkButtons share={share} onDeleted={() => void reload()} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
