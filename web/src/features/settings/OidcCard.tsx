/**
 * Settings → Global's single sign-on card (docs/api.md §2.14): the sign-in method (json or oidc)
 * and the OpenID provider's settings, saved with PUT /api/settings/oidc. The client secret is
 * write-only: the card says whether one is stored, takes a new one, or clears it. "Test discovery"
 * asks the server to fetch the issuer's discovery document and says OK or why not.
 */
import type { OidcDiscoveryResult, OidcSettings } from '@coffer/protocol';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { isApiError } from '../../api/errors';
import { getOidcSettings, putOidcSettings, testOidcDiscovery } from '../../api/settings';
import { Checkbox } from '../../components/Checkbox';
import { SelectField, TextField } from '../../components/Field';
import { Spinner } from '../../components/Spinner';
import { config } from '../../config';
import { toast } from '../../stores/toasts';
import * as oidcDraft from './oidcDraft';
import type { OidcDraft, OidcField, OidcProblem } from './oidcDraft';
import { SettingsCard } from './SettingsCard';

const OIDC_KEY = ['settings', 'oidc'] as const;

export function OidcCard() {
  const { t } = useTranslation();
  const query = useQuery({ queryKey: OIDC_KEY, queryFn: getOidcSettings });
  return (
    <div className="settings-oidc">
      {query.isPending ? (
        <Spinner label={t('common.loading')} />
      ) : query.isError ? (
        <p className="field__error">{query.error instanceof Error ? query.error.message : String(query.error)}</p>
      ) : (
        <OidcForm key={query.dataUpdatedAt} stored={query.data} />
      )}
    </div>
  );
}

function OidcForm({ stored }: { stored: OidcSettings }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<OidcDraft>(() => oidcDraft.draftOf(stored));
  const [attempted, setAttempted] = useState(false);
  const [saving, setSaving] = useState(false);
  const [refused, setRefused] = useState<Partial<Record<OidcField, OidcProblem>> | null>(null);
  const [testing, setTesting] = useState(false);
  const [discovery, setDiscovery] = useState<OidcDiscoveryResult | null>(null);
  const problems = oidcDraft.oidcProblems(draft);
  const change = (patch: Partial<OidcDraft>) => {
    setDraft((d) => ({ ...d, ...patch }));
    setRefused(null);
  };
  const errorOf = (field: OidcField): string | null => {
    const code = refused?.[field] ?? (attempted ? problems[field] : undefined);
    return code ? t(`settings.oidc.errors.${code}`) : null;
  };

  async function save() {
    setAttempted(true);
    if (Object.keys(problems).length > 0) {
      focusFirstInvalid();
      return;
    }
    setSaving(true);
    try {
      await putOidcSettings(oidcDraft.inputOf(draft));
      toast.success(t('settings.saved'));
      await queryClient.invalidateQueries({ queryKey: OIDC_KEY });
    } catch (err) {
      const fields = isApiError(err) && err.status === 422 ? oidcDraft.serverProblems(err.message) : null;
      if (fields) {
        setRefused(fields);
        focusFirstInvalid();
      } else toast.error(err instanceof Error ? err.message : String(err));
    } finally {
      setSaving(false);
    }
  }

  function focusFirstInvalid() {
    requestAnimationFrame(() => document.querySelector<HTMLElement>('.settings-oidc [aria-invalid="true"]')?.focus());
  }

  async function test() {
    setTesting(true);
    setDiscovery(null);
    try {
      setDiscovery(await testOidcDiscovery(draft.issuer.trim()));
    } catch (err) {
      toast.error(err instanceof Error ? err.message : String(err));
    } finally {
      setTesting(false);
    }
  }

  const methods: [string, string][] = [
    ['json', t('settings.oidc.methodJson')],
    ['oidc', t('settings.oidc.methodOidc')],
  ];
  const secretHint = draft.clearSecret
    ? t('settings.oidc.secretWillClear')
    : oidcDraft.keepsStoredSecret(draft)
      ? t('settings.oidc.secretSet')
      : draft.secretSet
        ? t('settings.oidc.secretNewIssuer')
        : t('settings.oidc.secretNotSet');

  return (
    <SettingsCard title={t('settings.oidc.title')} intro={t('settings.oidc.intro')} saving={saving} onSave={() => void save()}>
      <SelectField
        name="oidc.method"
        label={t('settings.oidc.method')}
        hint={draft.method === 'json' || draft.method === 'oidc' ? undefined : t('settings.oidc.methodOther')}
        value={draft.method}
        options={methods}
        onChange={(method) => change({ method })}
      />
      <TextField
        code
        name="oidc.issuer"
        label={t('settings.oidc.issuer')}
        hint={t('settings.oidc.issuerHint')}
        placeholder="https://auth.example.com"
        error={errorOf('issuer')}
        value={draft.issuer}
        onChange={(issuer) => change({ issuer })}
      />
      <div className="settings-oidc__test">
        <button type="button" className="button" disabled={testing || draft.issuer.trim() === ''} onClick={() => void test()}>
          {t('settings.oidc.test')}
        </button>
        <p className="settings-oidc__result" role="status" aria-live="polite">
          {testing
            ? t('settings.oidc.testing')
            : discovery
              ? discovery.ok
                ? t('settings.oidc.discoveryOk')
                : t(`settings.oidc.discovery.${discoveryKey(discovery.problem)}`, { detail: discovery.detail })
              : null}
        </p>
      </div>
      <TextField
        code
        name="oidc.clientId"
        label={t('settings.oidc.clientId')}
        error={errorOf('clientId')}
        value={draft.clientId}
        onChange={(clientId) => change({ clientId })}
      />
      <TextField
        code
        password
        name="oidc.clientSecret"
        label={t('settings.oidc.clientSecret')}
        hint={secretHint}
        disabled={draft.clearSecret}
        error={errorOf('clientSecret')}
        value={draft.newSecret}
        onChange={(newSecret) => change({ newSecret })}
      />
      {draft.secretSet ? (
        <Checkbox
          name="oidc.clearSecret"
          label={t('settings.oidc.clearSecret')}
          checked={draft.clearSecret}
          onChange={(clearSecret) => change({ clearSecret, newSecret: '' })}
        />
      ) : null}
      <TextField
        code
        name="oidc.redirectUrl"
        label={t('settings.oidc.redirectUrl')}
        hint={t('settings.oidc.redirectUrlHint')}
        placeholder={oidcDraft.suggestedRedirect(window.location.origin, config.BaseURL)}
        error={errorOf('redirectUrl')}
        value={draft.redirectUrl}
        onChange={(redirectUrl) => change({ redirectUrl })}
      />
      <TextField
        code
        name="oidc.scopes"
        label={t('settings.oidc.scopes')}
        error={errorOf('scopes')}
        value={draft.scopes}
        onChange={(scopes) => change({ scopes })}
      />
      <TextField
        code
        name="oidc.usernameClaim"
        label={t('settings.oidc.usernameClaim')}
        error={errorOf('usernameClaim')}
        value={draft.usernameClaim}
        onChange={(usernameClaim) => change({ usernameClaim })}
      />
      <Checkbox
        name="oidc.createUsers"
        label={t('settings.oidc.createUsers')}
        checked={draft.createUsers}
        onChange={(createUsers) => change({ createUsers })}
      />
      <Checkbox
        name="oidc.linkExisting"
        label={t('settings.oidc.linkExisting')}
        hint={t('settings.oidc.linkExistingHint')}
        checked={draft.linkExisting}
        onChange={(linkExisting) => change({ linkExisting })}
      />
      <TextField
        code
        name="oidc.adminClaim"
        label={t('settings.oidc.adminClaim')}
        hint={t('settings.oidc.adminClaimHint')}
        error={errorOf('adminClaim')}
        value={draft.adminClaim}
        onChange={(adminClaim) => change({ adminClaim })}
      />
      <TextField
        code
        name="oidc.adminValue"
        label={t('settings.oidc.adminValue')}
        error={errorOf('adminValue')}
        value={draft.adminValue}
        onChange={(adminValue) => change({ adminValue })}
      />
      <TextField
        name="oidc.name"
        label={t('settings.oidc.name')}
        hint={t('settings.oidc.nameHint')}
        error={errorOf('name')}
        value={draft.name}
        onChange={(name) => change({ name })}
      />
      <Checkbox
        name="oidc.passwordLogin"
        label={t('settings.oidc.passwordLogin')}
        hint={t('settings.oidc.passwordLoginHint')}
        checked={draft.passwordLogin}
        onChange={(passwordLogin) => change({ passwordLogin })}
      />
    </SettingsCard>
  );
}

/** The i18n key of each discovery problem the server names (docs/api.md §2.14). */
const DISCOVERY_KEYS = {
  unreachable: 'unreachable',
  timeout: 'timeout',
  status: 'status',
  'too-large': 'tooLarge',
  'not-json': 'notJson',
  'issuer-mismatch': 'issuerMismatch',
  incomplete: 'incomplete',
  'insecure-endpoint': 'insecureEndpoint',
  'invalid-issuer': 'invalidIssuer',
} as const;

/** "other" for a problem this page does not know. */
function discoveryKey(problem: string): (typeof DISCOVERY_KEYS)[keyof typeof DISCOVERY_KEYS] | 'other' {
  return Object.hasOwn(DISCOVERY_KEYS, problem) ? DISCOVERY_KEYS[problem as keyof typeof DISCOVERY_KEYS] : 'other';
}
