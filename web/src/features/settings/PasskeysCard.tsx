/**
 * Settings → Profile, "Passkeys" (docs/api.md §2.13): the user's passkeys (name, added, last used)
 * with Remove, and a form that names a new one. Adding and removing take the current password
 * (json and hook auth), as the two-factor card does; removing ends the other sessions and the app
 * passwords, which the prompt says.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { isApiError } from '../../api/errors';
import { addPasskey, listPasskeys, passkeysSupported, removePasskey, type PasskeyInfo } from '../../api/passkeys';
import { queryKeys } from '../../api/queryKeys';
import { TextField } from '../../components/Field';
import { Spinner } from '../../components/Spinner';
import { useFormat } from '../../i18n/useFormat';
import { toast } from '../../stores/toasts';
import { confirmDanger } from '../prompts/ConfirmPrompt';
import { CurrentPasswordField, useNeedsCurrentPassword } from './CurrentPasswordField';
import './signin.css';

const NAME_MAX = 100;

export function PasskeysCard() {
  const { t } = useTranslation();
  const format = useFormat();
  const client = useQueryClient();
  const titleId = useId();
  const list = useQuery({ queryKey: queryKeys.passkeys(), queryFn: ({ signal }) => listPasskeys(signal) });
  const [name, setName] = useState('');
  const [nameError, setNameError] = useState<string | null>(null);
  const [current, setCurrent] = useState('');
  const [currentError, setCurrentError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const needsCurrent = useNeedsCurrentPassword();
  const supported = passkeysSupported();

  /** Runs a change that takes the current password: a 400 is said at its field (docs/api.md §2.13). */
  async function run(action: () => Promise<void>, done: string): Promise<boolean> {
    if (needsCurrent && !current) {
      setCurrentError(t('settings.password.currentRequired'));
      return false;
    }
    setBusy(true);
    try {
      await action();
      toast.success(done);
      setCurrent('');
      return true;
    } catch (err) {
      if (isApiError(err) && err.status === 400) setCurrentError(t('settings.password.wrongCurrent'));
      else if (isApiError(err)) toast.error(err.message);
      // The browser's own refusal or cancel (NotAllowedError and the like).
      else toast.error(t('settings.passkeys.failed'));
      return false;
    } finally {
      setBusy(false);
      await client.invalidateQueries({ queryKey: queryKeys.passkeys() });
      await client.invalidateQueries({ queryKey: queryKeys.secondFactor() });
    }
  }

  async function handleAdd(e: FormEvent) {
    e.preventDefault();
    if (busy) return;
    const trimmed = name.trim();
    if (!trimmed) return setNameError(t('settings.passkeys.nameRequired'));
    if (trimmed.length > NAME_MAX) return setNameError(t('settings.appPasswords.nameTooLong', { max: NAME_MAX }));
    const ok = await run(async () => {
      await addPasskey(trimmed, needsCurrent ? current : undefined);
    }, t('settings.passkeys.added'));
    if (ok) setName('');
  }

  async function handleRemove(p: PasskeyInfo) {
    if (needsCurrent && !current) return setCurrentError(t('settings.password.currentRequired'));
    const ok = await confirmDanger({
      title: t('settings.passkeys.removeTitle'),
      text: t('settings.passkeys.removeText', { name: p.name }),
      cancel: t('files.prompts.cancel'),
      confirm: t('settings.passkeys.remove'),
    });
    if (ok) await run(() => removePasskey(p.id, needsCurrent ? current : undefined), t('settings.passkeys.removed'));
  }

  return (
    <section className="card signin-card" aria-labelledby={titleId}>
      <h2 id={titleId} className="card__title">
        {t('settings.passkeys.title')}
      </h2>
      <p className="muted">{t('settings.passkeys.intro')}</p>
      {list.isPending ? <Spinner label={t('common.loading')} /> : null}
      {list.isError ? <p className="field__error">{list.error.message}</p> : null}
      {list.data?.length === 0 ? <p>{t('settings.passkeys.none')}</p> : null}
      <ul className="signin-list" aria-label={t('settings.passkeys.title')}>
        {(list.data ?? []).map((p) => (
          <li key={p.id} className="signin-list__item">
            <div className="signin-list__main">
              <span className="signin-list__name" dir="auto">
                {p.name}
              </span>
              <span className="signin-list__meta">
                <span>{t('settings.passkeys.created', { when: format.dateTime(new Date(p.createdAt * 1000)) })}</span>
                <span>
                  {p.lastUsed === 0
                    ? t('settings.passkeys.neverUsed')
                    : t('settings.passkeys.lastUsed', { when: format.relative(new Date(p.lastUsed * 1000)) })}
                </span>
              </span>
            </div>
            <button
              type="button"
              className="button"
              disabled={busy}
              aria-label={t('settings.passkeys.removeNamed', { name: p.name })}
              onClick={() => void handleRemove(p)}
            >
              {t('settings.passkeys.remove')}
            </button>
          </li>
        ))}
      </ul>
      {supported ? (
        <form className="signin-form" onSubmit={(e) => void handleAdd(e)} noValidate>
          <h3 className="signin-form__title">{t('settings.passkeys.add')}</h3>
          <TextField
            name="passkey-name"
            label={t('settings.passkeys.name')}
            hint={t('settings.passkeys.nameHint')}
            error={nameError}
            value={name}
            onChange={(v) => {
              setName(v);
              setNameError(null);
            }}
          />
          <CurrentPasswordField
            name="passkey-current-password"
            value={current}
            error={currentError}
            onChange={setCurrent}
            onClearError={() => setCurrentError(null)}
          />
          <div className="form-actions">
            <button type="submit" className="button button--primary" disabled={busy}>
              {t('settings.passkeys.add')}
            </button>
          </div>
        </form>
      ) : (
        <p className="muted">{t('settings.passkeys.unsupported')}</p>
      )}
    </section>
  );
}
