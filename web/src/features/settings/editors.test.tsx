import type { Permissions, Rule } from '@coffer/protocol';
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadLateEnglish, setLanguage } from '../../i18n';
import { CommandsField } from './CommandsField';
import { NO_PERMISSIONS } from './permissions';
import { PermissionsField } from './PermissionsField';
import { RulesEditor } from './RulesEditor';

beforeAll(async () => {
  await setLanguage('en');
  await loadLateEnglish();
});

function Rules({ initial, seen }: { initial: Rule[]; seen: (rules: Rule[]) => void }) {
  const [rules, setRules] = useState(initial);
  return (
    <RulesEditor
      legend="Rules"
      rules={rules}
      onChange={(next) => {
        seen(next);
        setRules(next);
      }}
    />
  );
}

const rule = (path: string, allow = false): Rule => ({ allow, regex: false, path, regexp: { raw: '' } });

describe('RulesEditor', () => {
  it('adds, edits, reorders and removes rules, focus following the rule', async () => {
    const user = userEvent.setup();
    let last: Rule[] = [];
    render(<Rules initial={[rule('/a'), rule('/b', true)]} seen={(r) => (last = r)} />);
    await user.click(screen.getByRole('button', { name: 'Add rule' }));
    const third = screen.getByRole('group', { name: 'Rule 3' });
    await user.type(within(third).getByRole('textbox', { name: 'Path' }), '\\.env$');
    await user.click(within(third).getByRole('checkbox', { name: 'Regular expression' }));
    expect(within(third).getByRole('textbox', { name: 'Pattern' })).toHaveProperty('value', '\\.env$');
    expect(last[2]).toEqual({ allow: false, regex: true, path: '\\.env$', regexp: { raw: '\\.env$' } });

    const up = within(third).getByRole('button', { name: 'Move up' });
    await user.click(up);
    expect(last.map((r) => r.regexp?.raw || r.path)).toEqual(['/a', '\\.env$', '/b']);
    await new Promise((r) => requestAnimationFrame(r));
    const moved = screen.getByRole('group', { name: 'Rule 2' });
    expect(document.activeElement).toBe(within(moved).getByRole('button', { name: 'Move up' }));

    await user.selectOptions(
      within(screen.getByRole('group', { name: 'Rule 1' })).getByRole('combobox'),
      'allow',
    );
    expect(last[0]?.allow).toBe(true);
    await user.click(
      within(screen.getByRole('group', { name: 'Rule 1' })).getByRole('button', { name: 'Remove' }),
    );
    expect(last.map((r) => r.regexp?.raw || r.path)).toEqual(['\\.env$', '/b']);
  });

  it('says at once when a pattern does not compile', async () => {
    const user = userEvent.setup();
    render(
      <Rules
        initial={[{ allow: false, regex: true, path: '', regexp: { raw: '' } }]}
        seen={() => undefined}
      />,
    );
    const input = screen.getByRole('textbox', { name: 'Pattern' });
    await user.type(input, '(unclosed');
    expect(screen.getByText('This is not a valid regular expression.')).toBeTruthy();
    expect(input.getAttribute('aria-invalid')).toBe('true');
  });
});

describe('PermissionsField', () => {
  function Perms({ seen, exec }: { seen: (p: Permissions) => void; exec: boolean }) {
    const [perm, setPerm] = useState(NO_PERMISSIONS);
    return (
      <PermissionsField
        value={perm}
        execEnabled={exec}
        onChange={(p) => {
          seen(p);
          setPerm(p);
        }}
      />
    );
  }

  it('locks every box on while admin is ticked', async () => {
    const user = userEvent.setup();
    let last = NO_PERMISSIONS;
    render(<Perms exec seen={(p) => (last = p)} />);
    await user.click(screen.getByRole('checkbox', { name: 'Administrator' }));
    expect(Object.values(last).every(Boolean)).toBe(true);
    expect(screen.getByRole('checkbox', { name: 'Edit files' })).toHaveProperty('disabled', true);
    expect(screen.getByRole('checkbox', { name: 'Run commands' })).toHaveProperty('checked', true);
  });

  it('leaves out execute when the server runs no commands', () => {
    render(<Perms exec={false} seen={() => undefined} />);
    expect(screen.queryByRole('checkbox', { name: 'Run commands' })).toBeNull();
    expect(screen.getAllByRole('checkbox')).toHaveLength(7);
  });
});

describe('CommandsField', () => {
  it('keeps the text as typed and reports the words', async () => {
    const user = userEvent.setup();
    let last: string[] = [];
    function Commands() {
      const [value, setValue] = useState<string[]>(['ls']);
      return (
        <CommandsField
          value={value}
          onChange={(v) => {
            last = v;
            setValue(v);
          }}
        />
      );
    }
    render(<Commands />);
    const input = screen.getByRole('textbox', { name: 'Allowed commands' });
    await user.type(input, ' git ');
    expect(input).toHaveProperty('value', 'ls git ');
    expect(last).toEqual(['ls', 'git']);
  });
});
