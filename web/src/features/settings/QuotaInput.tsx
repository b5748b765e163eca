/**
 * A byte quota typed as an amount and a unit (docs/api.md §3.1 `quota`), inside a Field (which
 * gives the amount its label, hint and error): empty means no quota. The parent holds the text
 * (`parts`), so what is typed stays as typed; `quotaFromParts` reads it.
 */
import { useTranslation } from 'react-i18next';
import type { FieldControlProps } from '../../components/Field';
import { QUOTA_UNITS, type QuotaParts, type QuotaUnit } from '../../lib/quota';
import './settings.css';

export function QuotaInput({
  control,
  name,
  parts,
  onChange,
}: {
  control: FieldControlProps;
  name: string;
  parts: QuotaParts;
  onChange: (parts: QuotaParts) => void;
}) {
  const { t } = useTranslation();
  return (
    <div className="quota-input">
      <input
        {...control}
        className="input input--short"
        name={name}
        inputMode="decimal"
        autoComplete="off"
        dir="ltr"
        placeholder={t('users.noQuota')}
        value={parts.amount}
        onChange={(e) => onChange({ ...parts, amount: e.target.value })}
      />
      <select
        className="input quota-input__unit"
        name={`${name}Unit`}
        aria-label={t('users.quotaUnit')}
        value={parts.unit}
        onChange={(e) => onChange({ ...parts, unit: e.target.value as QuotaUnit })}
      >
        {QUOTA_UNITS.map((u) => (
          <option key={u} value={u}>
            {u}
          </option>
        ))}
      </select>
    </div>
  );
}
