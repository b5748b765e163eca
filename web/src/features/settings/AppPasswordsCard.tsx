/**
 * Settings → Profile, "App passwords" (docs/api.md §2.10): passwords for WebDAV and scripts, each
 * named, optionally read-only and expiring. A new one is shown once, with a copy button; the list
 * shows when each was made, when it expires and when it was last used, and revokes at once. A new
 * one takes the current password (json auth), so a stolen session cannot mint one that outlives it.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { isApiError } from '../../api/errors';
import { queryKeys } from '../../api/queryKeys';
import {
  createAppPassword,
  listAppPasswords,
  revokeAppPassword,
  type AppPasswordCreated,
  type AppPasswordInfo,
} from '../../api/signin';
import { Checkbox } from '../../components/Checkbox';
import { SelectField, TextField } from '../../components/Field';
import { IconButton } from '../../components/IconButton';
import { Spinner } from '../../components/Spinner';
import { useFormat } from '../../i18n/useFormat';
import { copyText } from '../../lib/clipboard';
import { toast } from '../../stores/toasts';
import { confirmDanger } from '../prompts/ConfirmPrompt';
import { CurrentPasswordField, useNeedsCurrentPassword } from './CurrentPasswordField';
import './signin.css';

/** The expiry choices, in days (0 = never). */
const EXPIRY_DAYS = [0, 7, 30, 90, 365] as const;
const NAME_MAX = 100;

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

export function AppPasswordsCard() {
  const { t } = useTranslation();
  const format = useFormat();
  const client = useQueryClient();
  const titleId = useId();
  const list = useQuery({
    queryKey: queryKeys.appPasswords(),
    queryFn: ({ signal }) => listAppPasswords(signal),
  });
  const [name, setName] = useState('');
  const [readOnly, setReadOnly] = useState(false);
  const [days, setDays] = useState('0');
  const [nameError, setNameError] = useState<string | null>(null);
  const [current, setCurrent] = useState('');
  const [currentError, setCurrentError] = useState<string | null>(null);
  const needsCurrent = useNeedsCurrentPassword();
  const [saving, setSaving] = useState(false);
  const [created, setCreated] = useState<AppPasswordCreated | null>(null);

  async function handleCreate(e: FormEvent) {
    e.preventDefault();
    if (saving) return;
    const trimmed = name.trim();
    if (!trimmed) return setNameError(t('settings.appPasswords.nameRequired'));
    if (trimmed.length > NAME_MAX)
      return setNameError(t('settings.appPasswords.nameTooLong', { max: NAME_MAX }));
    if (needsCurrent && !current) return setCurrentError(t('settings.password.currentRequired'));
    setSaving(true);
    try {
      const input = { name: trimmed, readOnly, expiresInDays: Number(days) };
      setCreated(await createAppPassword(needsCurrent ? { ...input, current_password: current } : input));
      setName('');
      setReadOnly(false);
      setDays('0');
      setCurrent('');
      await client.invalidateQueries({ queryKey: queryKeys.appPasswords() });
    } catch (err) {
      // The name was checked above: a 400 here is the current password (docs/api.md §2.10).
      if (isApiError(err) && err.status === 400) setCurrentError(t('settings.password.wrongCurrent'));
      else toast.error(messageOf(err));
    } finally {
      setSaving(false);
    }
  }

  async function handleRevoke(a: AppPasswordInfo) {
    const ok = await confirmDanger({
      title: t('settings.appPasswords.revokeTitle'),
      text: t('settings.appPasswords.revokeText', { name: a.name }),
      cancel: t('files.prompts.cancel'),
      confirm: t('settings.appPasswords.revoke'),
    });
    if (!ok) return;
    try {
      await revokeAppPassword(a.id);
      toast.success(t('settings.appPasswords.revoked'));
      if (created?.id === a.id) setCreated(null);
    } catch (err) {
      toast.error(messageOf(err));
    } finally {
      await client.invalidateQueries({ queryKey: queryKeys.appPasswords() });
    }
  }

  async function handleCopy(secret: string) {
    try {
      await copyText(secret);
      toast.success(t('settings.appPasswords.copied'));
    } catch (err) {
      toast.error(messageOf(err));
    }
  }

  function expiry(a: AppPasswordInfo): string {
    if (a.expiresAt === 0) return t('settings.appPasswords.neverExpires');
    const when = new Date(a.expiresAt * 1000);
    // Expired as of the list's answer (the server refuses it from that second on).
    if (when.getTime() <= list.dataUpdatedAt) return t('settings.appPasswords.expired');
    return t('settings.appPasswords.expires', { when: format.dateTime(when) });
  }

  function lastUse(a: AppPasswordInfo): string {
    if (a.lastUsed === 0) return t('settings.appPasswords.neverUsed');
    return t('settings.appPasswords.lastUsed', {
      when: format.relative(new Date(a.lastUsed * 1000)),
      address: a.lastAddress,
    });
  }

  // "7 days" in the language's own plural forms.
  const inDays = new Intl.NumberFormat(format.locale, { style: 'unit', unit: 'day', unitDisplay: 'long' });
  const expiryOptions = EXPIRY_DAYS.map(
    (d) => [String(d), d === 0 ? t('settings.appPasswords.never') : inDays.format(d)] as const,
  );

  return (
    <section className="card signin-card" aria-labelledby={titleId}>
      <h2 id={titleId} className="card__title">
        {t('settings.appPasswords.title')}
      </h2>
      <p className="muted">{t('settings.appPasswords.intro')}</p>
      {created ? (
        <div className="signin-secret" role="status">
          <p className="signin-secret__label">
            {t('settings.appPasswords.showOnce', { name: created.name })}
          </p>
          <div className="signin-secret__row">
            <code className="signin-secret__value" dir="ltr" data-testid="app-password-secret">
              {created.secret}
            </code>
            <IconButton
              icon="copy"
              label={t('settings.appPasswords.copy')}
              onClick={() => void handleCopy(created.secret)}
            />
          </div>
          <div className="form-actions">
            <button type="button" className="button" onClick={() => setCreated(null)}>
              {t('settings.appPasswords.done')}
            </button>
          </div>
        </div>
      ) : null}
      {list.isPending ? <Spinner label={t('common.loading')} /> : null}
      {list.isError ? <p className="field__error">{messageOf(list.error)}</p> : null}
      {list.data?.length === 0 ? <p>{t('settings.appPasswords.none')}</p> : null}
      <ul className="signin-list" aria-label={t('settings.appPasswords.title')}>
        {(list.data ?? []).map((a) => (
          <li key={a.id} className="signin-list__item">
            <div className="signin-list__main">
              <span className="signin-list__name" dir="auto">
                {a.name}
                {a.readOnly ? (
                  <span className="signin-badge">{t('settings.appPasswords.readOnly')}</span>
                ) : null}
              </span>
              <span className="signin-list__meta">
                <span>
                  {t('settings.appPasswords.created', {
                    when: format.dateTime(new Date(a.createdAt * 1000)),
                  })}
                </span>
                <span>{expiry(a)}</span>
                <span>{lastUse(a)}</span>
              </span>
            </div>
            <button
              type="button"
              className="button"
              aria-label={t('settings.appPasswords.revokeNamed', { name: a.name })}
              onClick={() => void handleRevoke(a)}
            >
              {t('settings.appPasswords.revoke')}
            </button>
          </li>
        ))}
      </ul>
      <form className="signin-form" onSubmit={(e) => void handleCreate(e)} noValidate>
        <h3 className="signin-form__title">{t('settings.appPasswords.new')}</h3>
        <TextField
          name="app-password-name"
          label={t('settings.appPasswords.name')}
          hint={t('settings.appPasswords.nameHint')}
          error={nameError}
          value={name}
          onChange={(v) => {
            setName(v);
            setNameError(null);
          }}
        />
        <SelectField
          name="app-password-expiry"
          label={t('settings.appPasswords.expiry')}
          value={days}
          onChange={setDays}
          options={expiryOptions}
        />
        <Checkbox
          name="app-password-read-only"
          label={t('settings.appPasswords.readOnly')}
          hint={t('settings.appPasswords.readOnlyHint')}
          checked={readOnly}
          onChange={setReadOnly}
        />
        <CurrentPasswordField
          name="app-password-current-password"
          value={current}
          error={currentError}
          onChange={setCurrent}
          onClearError={() => setCurrentError(null)}
        />
        <div className="form-actions">
          <button type="submit" className="button button--primary" disabled={saving}>
            {t('settings.appPasswords.create')}
          </button>
        </div>
      </form>
    </section>
  );
}
