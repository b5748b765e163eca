/**
 * The command runner (docs/client.md §2, docs/api.md §16): per event, the commands the server runs before and
 * after it, one per line, each in a collapsible box (open at first when it holds commands).
 */
import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Icon } from '../../components/Icon';
import type { SettingsEditor } from './settingsDraft';
import { LinesTextarea } from './LinesTextarea';

/** Events in the order files go through them, each before then after. */
const EVENTS = ['upload', 'save', 'rename', 'copy', 'delete'] as const;
type RunnerKey = `${'before' | 'after'}_${(typeof EVENTS)[number]}`;
const RUNNER_KEYS: RunnerKey[] = EVENTS.flatMap((e) => [`before_${e}`, `after_${e}`] as const);

export function CommandRunnerCard({ editor }: { editor: SettingsEditor }) {
  return (
    <div className="runner">
      {RUNNER_KEYS.map((key) => (
        <RunnerEvent
          key={key}
          event={key}
          lines={editor.settings.commands[key] ?? []}
          onChange={(next) => editor.change((s) => ({ ...s, commands: { ...s.commands, [key]: next } }))}
        />
      ))}
    </div>
  );
}

function RunnerEvent({
  event,
  lines,
  onChange,
}: {
  event: RunnerKey;
  lines: readonly string[];
  onChange: (lines: string[]) => void;
}) {
  const { t } = useTranslation();
  const id = useId();
  const [open, setOpen] = useState(() => lines.length > 0);
  const label = t(`settings.runner.events.${event}`);
  return (
    <details className="runner__event" open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary className="runner__summary">
        <span className="runner__chevron">
          <Icon name="chevronDown" size={18} />
        </span>
        <span>{label}</span>
        {lines.length > 0 ? (
          <span className="runner__count" aria-hidden="true">
            {lines.length}
          </span>
        ) : null}
      </summary>
      <label className="visually-hidden" htmlFor={id}>
        {label}
      </label>
      <LinesTextarea id={id} name={`commands.${event}`} value={lines} onChange={onChange} />
    </details>
  );
}
