import type { TokenUser } from '@coffer/protocol';
import { render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadLateEnglish, setLanguage } from '../../i18n';
import { useSession } from '../../stores/session';
import { NotAllowedHint } from './NotAllowedHint';

beforeAll(async () => {
  await setLanguage('en');
  await loadLateEnglish();
});
afterEach(() => useSession.setState({ user: null }));

function signIn(commands: string[], admin = false) {
  const user = { id: 4, username: 'ann', commands, perm: { admin, execute: true } } as unknown as TokenUser;
  useSession.setState({ user });
}

const show = () =>
  render(
    <MemoryRouter>
      <NotAllowedHint />
    </MemoryRouter>,
  );

describe('the hint after "Command not allowed."', () => {
  it('lists the commands the user may run and names where an administrator allows more', () => {
    signIn(['ls', 'git']);
    const { container } = show();
    expect(container.textContent).toContain('Commands you may run: ls git');
    expect([...container.querySelectorAll('code')].map((c) => c.textContent)).toEqual(['ls', 'git']);
    expect(container.textContent).toContain(
      'An administrator can allow more in Settings → User management → ann → Allowed commands.',
    );
    expect(screen.queryByRole('link')).toBeNull();
  });

  it('says when no command is allowed at all, and where commands are allowed (not "more")', () => {
    signIn([]);
    const text = show().container.textContent;
    expect(text).toContain('You may not run any command yet.');
    expect(text).toContain(
      'An administrator can allow commands in Settings → User management → ann → Allowed commands.',
    );
    expect(text).not.toContain('more');
  });

  it('tells an administrator with no command where to allow some, not "more"', () => {
    signIn([], true);
    const text = show().container.textContent;
    expect(text).toContain('You may not run any command yet.');
    expect(text).toContain('You can allow commands in Settings → User management → ann → Allowed commands.');
    expect(text).not.toContain('more');
    const link = screen.getByRole('link', { name: 'Settings → User management → ann → Allowed commands' });
    expect(link.getAttribute('href')).toBe('/settings/users/4');
  });

  it('links an administrator to their own user’s commands', () => {
    signIn(['ls'], true);
    show();
    const link = screen.getByRole('link', { name: 'Settings → User management → ann → Allowed commands' });
    expect(link.getAttribute('href')).toBe('/settings/users/4');
  });
});
