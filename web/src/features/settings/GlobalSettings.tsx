/**
 * /settings/global (docs/client.md §2 "Global settings"): four cards — general, single sign-on
 * (OidcCard, its own API), user defaults, command runner; the last two only when the server runs
 * commands. Every other card saves the whole settings
 * object (PUT /api/settings replaces all editable fields, docs/api.md §4.2), then the values are read
 * back from the server.
 */
import type { Settings } from '@coffer/protocol';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { isApiError } from '../../api/errors';
import { queryKeys } from '../../api/queryKeys';
import { getSettings, putSettings } from '../../api/settings';
import { Spinner } from '../../components/Spinner';
import { config } from '../../config';
import { toast } from '../../stores/toasts';
import { errorCodeOf } from '../errors/errorKind';
import { ErrorScreen } from '../errors/ErrorScreen';
import { CommandRunnerCard } from './CommandRunnerCard';
import { GeneralCard } from './GeneralCard';
import { IndexStatus } from './IndexStatus';
import { OidcCard } from './OidcCard';
import * as settingsDraft from './settingsDraft';
import type { ServerProblem, SettingsEditor } from './settingsDraft';
import { SettingsCard } from './SettingsCard';
import { UserDefaultsCard } from './UserDefaultsCard';
import './settings.css';

export function GlobalSettings({ execEnabled = config.EnableExec }: { execEnabled?: boolean }) {
  const { t } = useTranslation();
  const query = useQuery({ queryKey: queryKeys.settings(), queryFn: getSettings });
  if (query.isPending) return <Spinner label={t('common.loading')} />;
  if (query.isError) return <ErrorScreen code={errorCodeOf(query.error)} />;
  // Read back after every save: a new editor starts from what the server stored.
  return <SettingsForm key={query.dataUpdatedAt} stored={query.data} execEnabled={execEnabled} />;
}

function SettingsForm({ stored, execEnabled }: { stored: Settings; execEnabled: boolean }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [settings, setSettings] = useState(() => settingsDraft.editableSettings(stored));
  const [texts, setTexts] = useState(() => settingsDraft.textsOf(stored));
  const [attempted, setAttempted] = useState(false);
  const [saving, setSaving] = useState(false);
  const [refused, setRefused] = useState<ServerProblem | null>(null);
  // Bumped to move focus to the first field marked invalid once the marks are drawn.
  const [focusRequest, setFocusRequest] = useState(0);
  const root = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (focusRequest > 0) root.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [focusRequest]);
  const problems = settingsDraft.settingsProblems(settings, texts);

  const editor: SettingsEditor = {
    settings,
    texts,
    change: (update) => {
      setSettings(update);
      setRefused(null);
    },
    setText: (field, text) => setTexts((x) => ({ ...x, [field]: text })),
    numberError: (field) => {
      const min = problems.numbers[field];
      return min === undefined ? null : t('settings.errors.atLeast', { min });
    },
    pathError: (field) => (refused?.field === field ? t('settings.errors.path') : null),
    attempted,
    rulesError:
      refused?.field === 'rules'
        ? { index: refused.index, message: t('settings.rules.errors.refused', { reason: refused.message }) }
        : null,
  };

  async function save() {
    setAttempted(true);
    if (settingsDraft.hasProblems(problems)) {
      setFocusRequest((n) => n + 1);
      return;
    }
    setSaving(true);
    setRefused(null);
    try {
      await putSettings(settingsDraft.settingsToSave(settings, texts));
      toast.success(t('settings.saved'));
      await queryClient.invalidateQueries({ queryKey: queryKeys.settings() });
    } catch (err) {
      const problem = isApiError(err) && err.status === 400 ? settingsDraft.serverProblem(err.message) : null;
      if (problem) {
        setRefused(problem);
        setFocusRequest((n) => n + 1);
      } else {
        toast.error(err instanceof Error ? err.message : String(err));
      }
    } finally {
      setSaving(false);
    }
  }

  const cardProps = { saving, onSave: () => void save() };
  return (
    <div className="settings__cards settings__cards--global" ref={root}>
      <h1 className="page-title">{t('settings.global')}</h1>
      <IndexStatus />
      {/* Side by side on a wide screen (settings.css), one after the other otherwise. */}
      <div className="settings__split settings__split--global">
        <div className="settings__column">
          <SettingsCard title={t('settings.general.title')} {...cardProps}>
            <GeneralCard editor={editor} execEnabled={execEnabled} />
          </SettingsCard>
        </div>
        <div className="settings__column">
          <OidcCard />
          {execEnabled ? (
            <>
              <SettingsCard
                title={t('settings.defaults.title')}
                intro={t('settings.defaults.hint')}
                {...cardProps}
              >
                <UserDefaultsCard editor={editor} execEnabled={execEnabled} />
              </SettingsCard>
              <SettingsCard
                title={t('settings.runner.title')}
                intro={t('settings.runner.hint')}
                {...cardProps}
              >
                <CommandRunnerCard editor={editor} />
              </SettingsCard>
            </>
          ) : null}
        </div>
      </div>
    </div>
  );
}
