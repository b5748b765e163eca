/** The password card of a protected share (docs/client.md §2 "Public share page", §8 "Share page"). */
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Field } from '../../components/Field';
import { Icon } from '../../components/Icon';
import { useFormat } from '../../i18n/useFormat';

export interface SharePasswordProps {
  /** A typed password was refused. */
  wrong: boolean;
  /** Seconds to wait after too many wrong passwords (S45), or null. */
  retryAfter: number | null;
  busy: boolean;
  onSubmit: (password: string) => void;
}

export function SharePassword({ wrong, retryAfter, busy, onSubmit }: SharePasswordProps) {
  const { t } = useTranslation();
  const format = useFormat();
  const [password, setPassword] = useState('');
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (!busy) input.current?.focus();
  }, [busy, wrong]);

  function handleSubmit(e: FormEvent) {
    e.preventDefault();
    if (!busy) onSubmit(password);
  }

  const problem =
    retryAfter !== null
      ? t('login.tooManyAttempts', {
          duration: new Intl.NumberFormat(format.locale, {
            style: 'unit',
            unit: 'second',
            unitDisplay: 'long',
          }).format(retryAfter),
        })
      : wrong
        ? t('publicShare.wrongPassword')
        : null;

  return (
    <div className="share-password card">
      <span className="share-password__icon">
        <Icon name="lock" size={40} />
      </span>
      <h1 className="card__title">{t('publicShare.passwordTitle')}</h1>
      <p className="muted">{t('publicShare.passwordText')}</p>
      <form onSubmit={handleSubmit} noValidate>
        <Field label={t('login.password')} error={problem}>
          {(control) => (
            <input
              {...control}
              ref={input}
              className="input"
              type="password"
              autoComplete="current-password"
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
          )}
        </Field>
        <button type="submit" className="button button--primary button--block" disabled={busy}>
          {busy ? t('common.loading') : t('publicShare.submit')}
        </button>
      </form>
    </div>
  );
}

/**
 * The password card for a share query that answered 401 or 429 (`state` from pageState): the typed
 * password goes into `passwordRef` (read by the query) and the query runs again.
 */
export function PasswordFor({
  state,
  query,
  passwordRef,
  onTyped,
}: {
  state: { wrong: boolean; retryAfter: number | null };
  query: { isFetching: boolean; refetch: () => Promise<unknown> };
  passwordRef: { current: string };
  onTyped: () => void;
}) {
  return (
    <SharePassword
      wrong={state.wrong && !query.isFetching}
      retryAfter={query.isFetching ? null : state.retryAfter}
      busy={query.isFetching}
      onSubmit={(value) => {
        passwordRef.current = value;
        onTyped();
        void query.refetch();
      }}
    />
  );
}
