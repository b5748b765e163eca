/**
 * The user form (docs/client.md §2 "Users list and user form", §4 "Admin save", §8): create a user or edit
 * one, delete it. The admin's own password confirms every change when the server uses json
 * authentication (docs/api.md §3.2, S35). Refusals show next to their field; the rest as toasts.
 */
import type { User } from '@coffer/protocol';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { renewSession } from '../../api/auth';
import { isApiError } from '../../api/errors';
import { queryKeys } from '../../api/queryKeys';
import { createUser, getUser, replaceUser } from '../../api/users';
import { Checkbox } from '../../components/Checkbox';
import { Field, SelectField, TextField } from '../../components/Field';
import { Icon } from '../../components/Icon';
import { config } from '../../config';
import { useSession } from '../../stores/session';
import { toast } from '../../stores/toasts';
import { CommandsField } from '../settings/CommandsField';
import { LANGUAGE_OPTIONS } from '../settings/languageOptions';
import { PermissionsField } from '../settings/PermissionsField';
import { QuotaInput } from '../settings/QuotaInput';
import { RulesEditor } from '../settings/RulesEditor';
import { confirmDeleteUser } from './DeleteUserPrompt';
import { useNeedsCurrentPassword, useProblemText } from './problemText';
import { UserSignInActions } from './UserSignInActions';
import * as userDraft from './userDraft';
import type { FieldName, UserDraft, UserProblem, UserSettings } from './userDraft';
import './users.css';

/** An existing user (settings may be unreadable), or a new one built from the settings. */
export type UserFormProps = { user: User; settings: UserSettings | null } | { user: null; settings: UserSettings };

export function UserForm({ user, settings }: UserFormProps) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const client = useQueryClient();
  const me = useSession((s) => s.user);
  const problemText = useProblemText();
  const isNew = user === null;
  const [draft, setDraft] = useState<UserDraft>(() =>
    user ? userDraft.draftFromUser(user) : userDraft.newDraft(settings),
  );
  const [current, setCurrent] = useState('');
  const needsCurrent = useNeedsCurrentPassword();
  const [attempted, setAttempted] = useState(false);
  const [refusal, setRefusal] = useState<UserProblem | null>(null);
  const [saving, setSaving] = useState(false);
  // Bumped to move the focus to the first field in error once the errors are rendered.
  const [focusRequest, setFocusRequest] = useState(0);
  const formRef = useRef<HTMLFormElement>(null);

  useEffect(() => {
    if (focusRequest > 0) formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [focusRequest]);

  const minLength = settings?.minimumPasswordLength ?? null;
  const local = attempted
    ? userDraft.draftProblems(draft, { isNew, minLength, current: needsCurrent ? current : null })
    : [];
  const problems = refusal ? [refusal, ...local.filter((p) => p.field !== refusal.field)] : local;
  const errorOf = (field: FieldName) => {
    const p = problems.find((x) => x.field === field);
    return p ? problemText(p) : null;
  };
  const rulesProblem = problems.find((p) => p.field === 'rules');

  function edit(change: Partial<UserDraft>) {
    setDraft((d) => ({ ...d, ...change }));
    setRefusal(null);
  }

  async function handleSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (saving) return;
    setAttempted(true);
    setRefusal(null);
    const found = userDraft.draftProblems(draft, { isNew, minLength, current: needsCurrent ? current : null });
    if (found.length > 0) {
      setFocusRequest((n) => n + 1);
      return;
    }
    setSaving(true);
    try {
      const data = userDraft.userData(draft, user, settings);
      if (user) {
        await replaceUser({ ...data, id: user.id }, current);
        // docs/client.md §4: editing yourself also updates the stored current user.
        if (me?.id === user.id) await renewSession();
        await client.invalidateQueries({ queryKey: queryKeys.users() });
        // What the server stored (a cleaned scope, for one), without the password typed.
        const fresh = await client.ensureQueryData({ queryKey: queryKeys.user(user.id), queryFn: () => getUser(user.id) });
        setDraft(userDraft.draftFromUser(fresh));
        setCurrent('');
        setAttempted(false);
        toast.success(t('users.updated'));
      } else {
        const location = await createUser(data, current);
        await client.invalidateQueries({ queryKey: queryKeys.users() });
        toast.success(t('users.created'));
        // docs/client.md §4: a new user goes to the returned location, or the users list.
        await navigate(location.startsWith('/settings/users') ? location : '/settings/users');
      }
    } catch (err) {
      const problem = isApiError(err)
        ? userDraft.problemFromError(err.status, err.message)
        : ({ field: null, key: null, message: String(err) } as const);
      if (problem.field === null) toast.error(problemText(problem));
      else {
        setRefusal(problem);
        setFocusRequest((n) => n + 1);
      }
    } finally {
      setSaving(false);
    }
  }

  async function handleDelete() {
    if (!user) return;
    const deleted = await confirmDeleteUser(user, needsCurrent);
    if (!deleted) return;
    client.removeQueries({ queryKey: queryKeys.user(user.id) });
    await client.invalidateQueries({ queryKey: queryKeys.users() });
    toast.success(t('users.deleted'));
    await navigate('/settings/users');
  }

  const home = isNew && draft.createHome ? userDraft.homeFolder(settings?.userHomeBasePath ?? '/users', draft.username) : null;

  return (
    <form ref={formRef} className="card user-form" onSubmit={(e) => void handleSubmit(e)} noValidate>
      <h1 className="card__title">
        {/* The name keeps its own direction inside the sentence (a Latin name on an Arabic page). */}
        {user ? (
          <Trans i18nKey="users.editTitle" values={{ name: user.username }} components={{ name: <bdi /> }} />
        ) : (
          t('users.newTitle')
        )}
      </h1>
      <Field label={t('users.username')} error={errorOf('username')}>
        {(control) => (
          <input
            {...control}
            className="input"
            name="username"
            autoComplete="off"
            autoCapitalize="off"
            spellCheck={false}
            dir="auto"
            value={draft.username}
            onChange={(e) => edit({ username: e.target.value })}
          />
        )}
      </Field>
      <Field
        label={t('users.password')}
        error={errorOf('password')}
        hint={minLength !== null ? t('users.passwordHint', { min: minLength }) : undefined}
      >
        {(control) => (
          <input
            {...control}
            className="input"
            type="password"
            name="new-password"
            autoComplete="new-password"
            placeholder={isNew ? undefined : t('users.passwordUnchanged')}
            value={draft.password}
            onChange={(e) => edit({ password: e.target.value })}
          />
        )}
      </Field>
      {isNew ? (
        <Checkbox
          name="createHome"
          label={t('users.createHome')}
          hint={home ? t('users.homeHint', { path: home }) : undefined}
          checked={draft.createHome}
          // docs/client.md §2: when on, the scope field is disabled and emptied.
          onChange={(on) => edit({ createHome: on, scope: on ? '' : (settings?.defaults.scope ?? '') })}
        />
      ) : null}
      <TextField
        code
        name="scope"
        label={t('users.scope')}
        error={errorOf('scope')}
        hint={t('users.scopeHint')}
        disabled={isNew && draft.createHome}
        value={draft.scope}
        onChange={(scope) => edit({ scope })}
      />
      <SelectField
        name="locale"
        label={t('settings.language')}
        value={draft.locale}
        onChange={(locale) => edit({ locale })}
        options={[['', t('users.languageDefault')], ...LANGUAGE_OPTIONS]}
      />
      <Field label={t('users.quota')} hint={t('users.quotaHint')} error={errorOf('quota')}>
        {(control) => <QuotaInput control={control} name="quota" parts={draft.quota} onChange={(quota) => edit({ quota })} />}
      </Field>
      <Checkbox
        name="lockPassword"
        label={t('users.lockPassword')}
        hint={t('users.lockPasswordHint')}
        checked={draft.lockPassword && !draft.perm.admin}
        disabled={draft.perm.admin}
        onChange={(on) => edit({ lockPassword: on })}
      />
      <PermissionsField
        value={draft.perm}
        // docs/client.md §4: an admin's password is never locked.
        onChange={(perm) => edit({ perm, lockPassword: perm.admin ? false : draft.lockPassword })}
      />
      {config.EnableExec ? (
        <CommandsField value={draft.commands} onChange={(commands) => edit({ commands })} />
      ) : null}
      <RulesEditor
        legend={t('users.rules')}
        hint={t('users.rulesHint')}
        rules={draft.rules}
        onChange={(rules) => edit({ rules })}
        showErrors={attempted}
        serverError={
          rulesProblem?.key === 'rules' && rulesProblem.message
            ? { index: rulesProblem.index, message: rulesProblem.message }
            : null
        }
      />
      {user ? <UserSignInActions user={user} /> : null}
      {needsCurrent ? (
        <TextField
          name="current-password"
          label={t('users.currentPassword')}
          hint={t('users.currentPasswordHint')}
          error={errorOf('current')}
          password
          value={current}
          onChange={(v) => {
            setCurrent(v);
            if (refusal?.field === 'current') setRefusal(null);
          }}
        />
      ) : null}
      <div className="user-form__actions">
        {user ? (
          <button type="button" className="button button--danger" onClick={() => void handleDelete()}>
            <Icon name="trash" size={18} />
            {t('users.delete')}
          </button>
        ) : null}
        <span className="user-form__spacer" />
        <Link to="/settings/users" className="button">
          {t('users.cancel')}
        </Link>
        <button type="submit" className="button button--primary" disabled={saving}>
          {t('users.save')}
        </button>
      </div>
    </form>
  );
}
