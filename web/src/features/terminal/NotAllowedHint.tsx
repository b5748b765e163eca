/**
 * What follows "Command not allowed." (issue 17): the commands this user may run — the first word
 * of a line must be one of them (docs/api.md §16.1) — and where an administrator allows more (or
 * allows any, when there are none yet). The server
 * keeps File Browser's bare refusal text; the hint is built here from the user's `commands`.
 */
import { Fragment } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useSession } from '../../stores/session';

export function NotAllowedHint() {
  const { t, i18n } = useTranslation();
  const user = useSession((s) => s.user);
  if (!user) return null;
  const commands = user.commands.filter((c) => c.trim() !== '');
  // The place in the UI, in its own labels: Settings → User management → ann → Allowed commands.
  const where = {
    settings: t('nav.settings'),
    users: t('settings.users'),
    user: user.username,
    field: t('settings.commands.label'),
  };
  return (
    <div className="terminal__hint" dir={i18n.dir()}>
      {commands.length > 0 ? (
        <p className="terminal__hint-line">
          {t('terminal.allowed')}
          {commands.map((c) => (
            <Fragment key={c}>
              {' '}
              <code className="terminal__allowed" dir="ltr">
                {c}
              </code>
            </Fragment>
          ))}
        </p>
      ) : (
        <p className="terminal__hint-line">{t('terminal.allowedNone')}</p>
      )}
      {/* "More" only follows a list: with none allowed yet, the line speaks of commands. */}
      <p className="terminal__hint-line">
        {user.perm.admin ? (
          <Trans
            i18nKey={commands.length > 0 ? 'terminal.allowMore' : 'terminal.allowFirst'}
            values={where}
            components={{ place: <Link to={`/settings/users/${user.id}`} className="terminal__link" /> }}
          />
        ) : (
          t(commands.length > 0 ? 'terminal.askAdmin' : 'terminal.askAdminFirst', where)
        )}
      </p>
    </div>
  );
}
