/**
 * "Sign in with …" on the login screen for the oidc auth method (docs/api.md §2.13): a link to
 * the server's start of the flow, carrying the screen's return path, and what the callback
 * reported when it sent the browser back with `oidc_error`.
 */
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { config } from '../../config';
import { safeRedirect } from '../../lib/redirect';

export function OidcSignIn() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  if (!config.OIDC) return null;
  const name = config.OIDC.Name;
  const error = params.get('oidc_error');
  const href = `${config.BaseURL}/api/oidc/login?redirect=${encodeURIComponent(safeRedirect(params.get('redirect')))}`;
  return (
    <>
      {error ? (
        <p className="login__problem" role="alert">
          {error === 'refused' ? t('login.oidcRefused', { name }) : t('login.oidcFailed', { name })}
        </p>
      ) : null}
      <a className="button button--primary button--block login__oidc" href={href}>
        {t('login.oidcButton', { name })}
      </a>
      {config.OIDC.PasswordLogin ? <p className="login__or">{t('login.or')}</p> : null}
    </>
  );
}
