/**
 * The general card of the global settings (docs/client.md §2): signup, home folders, password length,
 * global rules, the shell (only when the server runs commands, with what it means for security,
 * S71), branding, WebDAV and resumable uploads.
 */
import type { Settings } from '@coffer/protocol';
import { useTranslation } from 'react-i18next';
import { Checkbox } from '../../components/Checkbox';
import { Field, NumberField, SelectField, TextField } from '../../components/Field';
import { Icon } from '../../components/Icon';
import { ChunkSizeField } from './ChunkSizeField';
import { defaultQuota, type SettingsEditor } from './settingsDraft';
import { QuotaInput } from './QuotaInput';
import { RulesEditor } from './RulesEditor';
import { WordsInput } from './WordsInput';

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
      <TextField
        code
        name="userHomeBasePath"
        label={t('settings.general.userHomeBasePath')}
        error={pathError('userHomeBasePath')}
        value={s.userHomeBasePath}
        onChange={(userHomeBasePath) => change((d) => ({ ...d, userHomeBasePath }))}
      />
      {/* New users' quota (docs/api.md §4.1 defaults.quota): beside the other new-user settings, shown with or without execution. */}
      <Field
        label={t('settings.defaults.quota')}
        hint={t('users.quotaHint')}
        error={attempted && defaultQuota(texts) === null ? t('users.errors.quotaInvalid') : null}
      >
        {(control) => (
          <QuotaInput
            control={control}
            name="defaults.quota"
            parts={{ amount: texts.quotaAmount, unit: texts.quotaUnit }}
            onChange={(p) => {
              setText('quotaAmount', p.amount);
              setText('quotaUnit', p.unit);
            }}
          />
        )}
      </Field>
      <NumberField
        name="minimumPasswordLength"
        label={t('settings.general.minimumPasswordLength')}
        error={numberError('minimumPasswordLength')}
        min={1}
        value={texts.minimumPasswordLength}
        onChange={(text) => setText('minimumPasswordLength', text)}
      />
      <RulesEditor
        legend={t('settings.general.rules')}
        hint={t('settings.general.rulesHint')}
        rules={s.rules}
        onChange={(rules) => change((d) => ({ ...d, rules }))}
        showErrors={attempted}
        serverError={rulesError}
      />
      {execEnabled ? (
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
        <SelectField
          name="brandingTheme"
          label={t('settings.branding.theme')}
          value={s.branding.theme}
          onChange={(theme) => branding({ theme })}
          options={[
            ['', t('settings.themes.system')],
            ['light', t('settings.themes.light')],
            ['dark', t('settings.themes.dark')],
          ]}
        />
        <TextField
          name="brandingName"
          label={t('settings.branding.name')}
          hint={t('settings.branding.nameHint')}
          value={s.branding.name}
          onChange={(name) => branding({ name })}
        />
        <TextField
          code
          name="brandingFiles"
          label={t('settings.branding.files')}
          hint={t('settings.branding.filesHint')}
          value={s.branding.files}
          onChange={(files) => branding({ files })}
        />
      </fieldset>
      <fieldset className="fieldset settings-group">
        <legend className="settings-group__title">{t('settings.webdav.title')}</legend>
        <Checkbox
          name="refuseMacMetadata"
          label={t('settings.webdav.refuseMacMetadata')}
          hint={t('settings.webdav.refuseMacMetadataHint')}
          checked={s.webdav.refuseMacMetadata}
          onChange={(refuseMacMetadata) => change((d) => ({ ...d, webdav: { ...d.webdav, refuseMacMetadata } }))}
        />
      </fieldset>
      <fieldset className="fieldset settings-group">
        <legend className="settings-group__title">{t('settings.tus.title')}</legend>
        <ChunkSizeField text={texts.chunkSize} onText={(text) => setText('chunkSize', text)} />
        <NumberField
          name="retryCount"
          label={t('settings.tus.retryCount')}
          hint={t('settings.tus.retryCountHint')}
          error={numberError('retryCount')}
          min={0}
          value={texts.retryCount}
          onChange={(text) => setText('retryCount', text)}
        />
      </fieldset>
    </>
  );
}
