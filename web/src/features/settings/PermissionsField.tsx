/**
 * The permission checkboxes of a user or of the user defaults (docs/client.md §2, §4 "Admin checkbox", §6).
 * `execute` shows only when the server runs commands.
 */
import type { Permissions } from '@coffer/protocol';
import { useTranslation } from 'react-i18next';
import { Checkbox } from '../../components/Checkbox';
import { config } from '../../config';
import { isPermissionLocked, setPermission, visiblePermissions } from './permissions';
import './settings.css';

export function PermissionsField({
  value,
  onChange,
  execEnabled = config.EnableExec,
}: {
  value: Permissions;
  onChange: (perm: Permissions) => void;
  execEnabled?: boolean;
}) {
  const { t } = useTranslation();
  return (
    <fieldset className="fieldset">
      <legend className="field__label">{t('settings.perm.title')}</legend>
      {value.admin ? <p className="field__hint">{t('settings.perm.adminHint')}</p> : null}
      <div className="checks">
        {visiblePermissions(execEnabled).map((name) => (
          <Checkbox
            key={name}
            name={`perm.${name}`}
            label={t(`settings.perm.${name}`)}
            checked={value[name]}
            disabled={isPermissionLocked(value, name)}
            onChange={(on) => onChange(setPermission(value, name, on))}
          />
        ))}
      </div>
    </fieldset>
  );
}
