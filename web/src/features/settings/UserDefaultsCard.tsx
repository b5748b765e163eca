/**
 * What new users start with (spec §2 "Global settings", api.md §4 `defaults`): scope, language,
 * view, preferences, sorting, permissions and allowed commands.
 */
import type { UserDefaults } from '@coffer/protocol';
import { useTranslation } from 'react-i18next';
import { Checkbox } from '../../components/Checkbox';
import { Field } from '../../components/Field';
import { LANGUAGES } from '../../i18n/languages';
import { CommandsField } from './CommandsField';
import type { SettingsEditor } from './GlobalSettings';
import { PermissionsField } from './PermissionsField';

const VIEW_MODES = [
  ['list', 'files.views.list'],
  ['mosaic', 'files.views.mosaic'],
  ['mosaic gallery', 'files.views.gallery'],
] as const;
const SORT_FIELDS = [
  ['name', 'files.name'],
  ['size', 'files.size'],
  ['modified', 'files.modified'],
] as const;
const FLAGS = ['singleClick', 'hideDotfiles', 'dateFormat'] as const;

export function UserDefaultsCard({ editor, execEnabled }: { editor: SettingsEditor; execEnabled: boolean }) {
  const { t } = useTranslation();
  const d = editor.settings.defaults;
  const set = (patch: Partial<UserDefaults>) =>
    editor.change((s) => ({ ...s, defaults: { ...s.defaults, ...patch } }));
  // A stored value the form does not list (set from the command line) stays selectable.
  const knownLocale = LANGUAGES.some((l) => l.code === d.locale);
  const knownView = VIEW_MODES.some(([v]) => v === d.viewMode);
  const knownSort = SORT_FIELDS.some(([v]) => v === d.sorting.by);
  return (
    <>
      <Field
        label={t('settings.defaults.scope')}
        hint={t('settings.defaults.scopeHint')}
        error={editor.pathError('scope')}
      >
        {(control) => (
          <input
            {...control}
            className="input"
            name="defaults.scope"
            value={d.scope}
            dir="ltr"
            spellCheck={false}
            autoComplete="off"
            onChange={(e) => set({ scope: e.target.value })}
          />
        )}
      </Field>
      <Field label={t('settings.language')}>
        {(control) => (
          <select
            {...control}
            className="input"
            name="defaults.locale"
            value={d.locale}
            onChange={(e) => set({ locale: e.target.value })}
          >
            {knownLocale ? null : <option value={d.locale}>{d.locale}</option>}
            {LANGUAGES.map((l) => (
              <option key={l.code} value={l.code} lang={l.code}>
                {l.name}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label={t('settings.defaults.viewMode')}>
        {(control) => (
          <select
            {...control}
            className="input"
            name="defaults.viewMode"
            value={d.viewMode}
            onChange={(e) => set({ viewMode: e.target.value })}
          >
            {knownView ? null : <option value={d.viewMode}>{d.viewMode}</option>}
            {VIEW_MODES.map(([value, label]) => (
              <option key={value} value={value}>
                {t(label)}
              </option>
            ))}
          </select>
        )}
      </Field>
      <div className="field-row">
        <Field label={t('files.sortBy')}>
          {(control) => (
            <select
              {...control}
              className="input"
              name="defaults.sorting.by"
              value={d.sorting.by}
              onChange={(e) => set({ sorting: { ...d.sorting, by: e.target.value } })}
            >
              {knownSort ? null : <option value={d.sorting.by}>{d.sorting.by || '—'}</option>}
              {SORT_FIELDS.map(([value, label]) => (
                <option key={value} value={value}>
                  {t(label)}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Checkbox
          name="defaults.sorting.asc"
          label={t('settings.defaults.sortAsc')}
          checked={d.sorting.asc}
          onChange={(asc) => set({ sorting: { ...d.sorting, asc } })}
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
