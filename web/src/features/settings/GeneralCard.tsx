/**
 * The general card of the global settings (spec §2): signup, home folders, password length,
 * global rules, the shell (only when the server runs commands, with what it means for security,
 * S71), branding and resumable uploads.
 */
import type { Settings } from '@coffer/protocol';
import { useTranslation } from 'react-i18next';
import { Checkbox } from '../../components/Checkbox';
import { Field } from '../../components/Field';
import { Icon } from '../../components/Icon';
import { ChunkSizeField } from './ChunkSizeField';
import type { SettingsEditor } from './GlobalSettings';
import { RulesEditor } from './RulesEditor';
import { WordsInput } from './WordsInput';

const BRANDING_THEMES = [
  ['', 'settings.themes.system'],
  ['light', 'settings.themes.light'],
  ['dark', 'settings.themes.dark'],
] as const;

export function GeneralCard({ editor, execEnabled }: { editor: SettingsEditor; execEnabled: boolean }) {
  const { t } = useTranslation();
  const { settings: s, texts, change, setText, numberError, pathError, attempted, rulesError } = editor;
  const branding = (patch: Partial<Settings['branding']>) =>
    change((d) => ({ ...d, branding: { ...d.branding, ...patch } }));
  return (
    <>
      <Checkbox
        name="signup"
        label={t('settings.general.signup')}
        checked={s.signup}
        onChange={(signup) => change((d) => ({ ...d, signup }))}
      />
      <Checkbox
        name="createUserDir"
        label={t('settings.general.createUserDir')}
        hint={t('settings.general.createUserDirHint')}
        checked={s.createUserDir}
        onChange={(createUserDir) => change((d) => ({ ...d, createUserDir }))}
      />
      <Field label={t('settings.general.userHomeBasePath')} error={pathError('userHomeBasePath')}>
        {(control) => (
          <input
            {...control}
            className="input"
            name="userHomeBasePath"
            value={s.userHomeBasePath}
            dir="ltr"
            spellCheck={false}
            autoComplete="off"
            onChange={(e) => change((d) => ({ ...d, userHomeBasePath: e.target.value }))}
          />
        )}
      </Field>
      <Field label={t('settings.general.minimumPasswordLength')} error={numberError('minimumPasswordLength')}>
        {(control) => (
          <input
            {...control}
            className="input input--number"
            type="number"
            name="minimumPasswordLength"
            inputMode="numeric"
            min={1}
            step={1}
            value={texts.minimumPasswordLength}
            onChange={(e) => setText('minimumPasswordLength', e.target.value)}
          />
        )}
      </Field>
      <RulesEditor
        legend={t('settings.general.rules')}
        hint={t('settings.general.rulesHint')}
        rules={s.rules}
        onChange={(rules) => change((d) => ({ ...d, rules }))}
        showErrors={attempted}
        serverError={rulesError}
      />
      {execEnabled ? (
        <div className="shell-setting">
          <WordsInput
            label={t('settings.shell.label')}
            hint={
              <div className="callout callout--warning" role="note">
                <Icon name="warning" size={20} />
                <div>
                  <p>{t('settings.shell.hint')}</p>
                  <p>
                    <strong>{t('settings.shell.warning')}</strong>
                  </p>
                  <p>{t('settings.shell.direct')}</p>
                </div>
              </div>
            }
            name="shell"
            placeholder="bash -c"
            value={s.shell}
            onChange={(shell) => change((d) => ({ ...d, shell }))}
          />
        </div>
      ) : null}
      <fieldset className="fieldset settings-group">
        <legend className="settings-group__title">{t('settings.branding.title')}</legend>
        <p className="field__hint settings-group__intro">{t('settings.branding.hint')}</p>
        <Checkbox
          name="disableExternal"
          label={t('settings.branding.disableExternal')}
          checked={s.branding.disableExternal}
          onChange={(disableExternal) => branding({ disableExternal })}
        />
        <Checkbox
          name="disableUsedPercentage"
          label={t('settings.branding.disableUsedPercentage')}
          checked={s.branding.disableUsedPercentage}
          onChange={(disableUsedPercentage) => branding({ disableUsedPercentage })}
        />
        <Field label={t('settings.branding.theme')}>
          {(control) => (
            <select
              {...control}
              className="input"
              name="brandingTheme"
              value={s.branding.theme}
              onChange={(e) => branding({ theme: e.target.value })}
            >
              {BRANDING_THEMES.map(([value, label]) => (
                <option key={value} value={value}>
                  {t(label)}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label={t('settings.branding.name')} hint={t('settings.branding.nameHint')}>
          {(control) => (
            <input
              {...control}
              className="input"
              name="brandingName"
              value={s.branding.name}
              dir="auto"
              autoComplete="off"
              onChange={(e) => branding({ name: e.target.value })}
            />
          )}
        </Field>
        <Field label={t('settings.branding.files')} hint={t('settings.branding.filesHint')}>
          {(control) => (
            <input
              {...control}
              className="input"
              name="brandingFiles"
              value={s.branding.files}
              dir="ltr"
              spellCheck={false}
              autoComplete="off"
              onChange={(e) => branding({ files: e.target.value })}
            />
          )}
        </Field>
      </fieldset>
      <fieldset className="fieldset settings-group">
        <legend className="settings-group__title">{t('settings.tus.title')}</legend>
        <ChunkSizeField text={texts.chunkSize} onText={(text) => setText('chunkSize', text)} />
        <Field
          label={t('settings.tus.retryCount')}
          hint={t('settings.tus.retryCountHint')}
          error={numberError('retryCount')}
        >
          {(control) => (
            <input
              {...control}
              className="input input--number"
              type="number"
              name="retryCount"
              inputMode="numeric"
              min={0}
              step={1}
              value={texts.retryCount}
              onChange={(e) => setText('retryCount', e.target.value)}
            />
          )}
        </Field>
      </fieldset>
    </>
  );
}
