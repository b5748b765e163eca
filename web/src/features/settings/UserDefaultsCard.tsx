/**
 * What new users start with (docs/client.md §2 "Global settings", docs/api.md §4.1 `defaults`): scope, language,
 * view, preferences, sorting, permissions and allowed commands.
 */
import type { UserDefaults } from '@coffer/protocol';
import { useTranslation } from 'react-i18next';
import { Checkbox } from '../../components/Checkbox';
import { SelectField, TextField } from '../../components/Field';
import { isSortField, sortingFrom, storedSorting, type Sorting } from '../../lib/sorting';
import { CommandsField } from './CommandsField';
import type { SettingsEditor } from './settingsDraft';
import { LANGUAGE_OPTIONS } from './languageOptions';
import { PermissionsField } from './PermissionsField';

const FLAGS = ['singleClick', 'hideDotfiles', 'dateFormat'] as const;

export function UserDefaultsCard({ editor, execEnabled }: { editor: SettingsEditor; execEnabled: boolean }) {
  const { t } = useTranslation();
  const d = editor.settings.defaults;
  const set = (patch: Partial<UserDefaults>) =>
    editor.change((s) => ({ ...s, defaults: { ...s.defaults, ...patch } }));
  // The order new users see; stored with name's inverted flag (docs/api.md §7.5).
  const sorting = sortingFrom(d.sorting);
  const setSorting = (next: Sorting) => set({ sorting: storedSorting(next) });
  return (
    <>
      <TextField
        code
        name="defaults.scope"
        label={t('settings.defaults.scope')}
        hint={t('settings.defaults.scopeHint')}
        error={editor.pathError('scope')}
        value={d.scope}
        onChange={(scope) => set({ scope })}
      />
      <SelectField
        name="defaults.locale"
        label={t('settings.language')}
        value={d.locale}
        onChange={(locale) => set({ locale })}
        options={LANGUAGE_OPTIONS}
      />
      <SelectField
        name="defaults.viewMode"
        label={t('settings.defaults.viewMode')}
        value={d.viewMode}
        onChange={(viewMode) => set({ viewMode })}
        options={[
          ['list', t('files.views.list')],
          ['mosaic', t('files.views.mosaic')],
          ['mosaic gallery', t('files.views.gallery')],
        ]}
      />
      <div className="field-row">
        <SelectField
          name="defaults.sorting.by"
          label={t('files.sortBy')}
          value={sorting.by}
          onChange={(by) => setSorting({ by: isSortField(by) ? by : 'name', asc: sorting.asc })}
          options={[
            ['name', t('files.name')],
            ['size', t('files.size')],
            ['modified', t('files.modified')],
          ]}
        />
        <Checkbox
          name="defaults.sorting.asc"
          label={t('settings.defaults.sortAsc')}
          checked={sorting.asc}
          onChange={(asc) => setSorting({ ...sorting, asc })}
        />
      </div>
      <fieldset className="fieldset">
        <legend className="field__label">{t('settings.files')}</legend>
        {FLAGS.map((flag) => (
          <Checkbox
            key={flag}
            name={`defaults.${flag}`}
            label={t(`settings.flags.${flag}`)}
            checked={d[flag]}
            onChange={(on) => set({ [flag]: on })}
          />
        ))}
      </fieldset>
      <PermissionsField value={d.perm} execEnabled={execEnabled} onChange={(perm) => set({ perm })} />
      {execEnabled ? <CommandsField value={d.commands} onChange={(commands) => set({ commands })} /> : null}
    </>
  );
}
