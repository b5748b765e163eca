/**
 * Changing one's own password (docs/client.md §2 "Profile settings", §5): new and confirm fields, green
 * when they match and red when not; hidden when the account's password is locked. With json
 * authentication the server also wants the current password (docs/api.md §3, S35). The session that
 * makes the change stays signed in (S21).
 */
import { useNeedsCurrentPassword } from './CurrentPasswordField';
import { useQuery } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { isApiError } from '../../api/errors';
import { queryKeys } from '../../api/queryKeys';
import { getSettings } from '../../api/settings';
import { changePassword } from '../../api/users';
import { Field } from '../../components/Field';
import { Icon } from '../../components/Icon';
import { useSession } from '../../stores/session';
import { toast } from '../../stores/toasts';
import {
  passwordFormProblem,
  passwordMatch,
  passwordProblemFromError,
  type PasswordMatch,
  type PasswordProblem,
} from './password';
import './settings.css';

export function PasswordForm() {
  const { t } = useTranslation();
  const user = useSession((s) => s.user);
  const admin = user?.perm.admin ?? false;
  // Only admins may read the settings; for others the server says the minimum when refusing.
  const settings = useQuery({ queryKey: queryKeys.settings(), queryFn: getSettings, enabled: admin });
  const minLength = settings.data?.minimumPasswordLength ?? null;
  const needsCurrent = useNeedsCurrentPassword();
  const [current, setCurrent] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [problem, setProblem] = useState<PasswordProblem | null>(null);
  const [saving, setSaving] = useState(false);

  if (!user || user.lockPassword) return null;
  const match = passwordMatch(password, confirm);

  /** A problem shown for what was sent goes away as soon as the fields change. */
  function edit(set: (value: string) => void, value: string) {
    set(value);
    setProblem(null);
  }

  function message(p: PasswordProblem | null, field: PasswordProblem['field']): string | null {
    if (!p || p.field !== field) return null;
    if (p.key === 'tooShort') return t('settings.password.tooShort', { min: p.min });
    return t(`settings.password.${p.key}`);
  }

  async function handleSubmit(e: FormEvent) {
    e.preventDefault();
    if (!user || saving) return;
    const found = passwordFormProblem({ current, password, confirm, needsCurrent, minLength });
    setProblem(found);
    if (found) return;
    setSaving(true);
    try {
      await changePassword(user.id, password, current);
      setCurrent('');
      setPassword('');
      setConfirm('');
      toast.success(t('settings.password.updated'));
    } catch (err) {
      const refused = isApiError(err) && err.status === 400 ? passwordProblemFromError(err.message) : null;
      if (refused) setProblem(refused);
      else toast.error(err instanceof Error ? err.message : String(err));
    } finally {
      setSaving(false);
    }
  }

  return (
    <form className="card" onSubmit={(e) => void handleSubmit(e)} noValidate>
      <h2 className="card__title">{t('settings.password.title')}</h2>
      {/* Lets password managers file the new password under the right account. */}
      <input type="text" name="username" autoComplete="username" value={user.username} readOnly hidden />
      {needsCurrent ? (
        <PasswordField
          name="current-password"
          label={t('settings.password.current')}
          error={message(problem, 'current')}
          value={current}
          onChange={(v) => edit(setCurrent, v)}
        />
      ) : null}
      <PasswordField
        name="new-password"
        label={t('settings.password.new')}
        hint={minLength !== null ? t('settings.password.minHint', { min: minLength }) : undefined}
        error={message(problem, 'password')}
        frame={match}
        value={password}
        onChange={(v) => edit(setPassword, v)}
      />
      <PasswordField
        name="confirm-password"
        label={t('settings.password.confirm')}
        error={match === 'mismatch' ? null : message(problem, 'confirm')}
        match={match}
        value={confirm}
        onChange={(v) => edit(setConfirm, v)}
      />
      <div className="form-actions">
        <button type="submit" className="button button--primary" disabled={saving}>
          {t('settings.password.submit')}
        </button>
      </div>
    </form>
  );
}

/** One password input; the confirmation also says, as it is typed, whether it matches (docs/client.md §2). */
function PasswordField({
  name,
  label,
  hint,
  error,
  value,
  onChange,
  match,
  frame,
}: {
  name: 'current-password' | 'new-password' | 'confirm-password';
  label: string;
  hint?: string;
  error: string | null;
  value: string;
  onChange: (value: string) => void;
  match?: PasswordMatch;
  /** Colours the field as `match` does, without the message (the new password, docs/client.md §2). */
  frame?: PasswordMatch;
}) {
  const { t } = useTranslation();
  const matchId = useId();
  const shown = match !== undefined && match !== 'empty' ? match : null;
  return (
    <Field label={label} hint={hint} error={error}>
      {(control) => (
        <>
          <input
            {...control}
            aria-describedby={
              [control['aria-describedby'], shown ? matchId : null].filter(Boolean).join(' ') || undefined
            }
            aria-invalid={shown === 'mismatch' || control['aria-invalid'] ? true : undefined}
            className={(match ?? frame) ? `input input--${match ?? frame}` : 'input'}
            type="password"
            name={name}
            autoComplete={name === 'current-password' ? 'current-password' : 'new-password'}
            value={value}
            onChange={(e) => onChange(e.target.value)}
          />
          {match !== undefined ? (
            <p id={matchId} className={`password-match password-match--${match}`} aria-live="polite">
              {shown ? (
                <>
                  <Icon name={shown === 'match' ? 'check' : 'error'} size={16} />
                  <span>{t(`settings.password.${shown}`)}</span>
                </>
              ) : null}
            </p>
          ) : null}
        </>
      )}
    </Field>
  );
}
