import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { IconButton } from './IconButton';

describe('IconButton', () => {
  it('is a button named by its label, which is also the tooltip, and passes the rest on', async () => {
    const onClick = vi.fn();
    render(<IconButton icon="close" label="Close" aria-expanded={false} data-move="up" onClick={onClick} />);
    const button = screen.getByRole('button', { name: 'Close' });
    expect(button.getAttribute('type')).toBe('button');
    expect(button.getAttribute('title')).toBe('Close');
    expect(button.className).toBe('icon-button');
    expect(button.getAttribute('aria-expanded')).toBe('false');
    expect(button.dataset.move).toBe('up');
    expect(button.querySelector('svg')?.getAttribute('width')).toBe('20');
    await userEvent.click(button);
    expect(onClick).toHaveBeenCalledOnce();
  });

  it('has a small size and takes extra classes', () => {
    render(<IconButton small className="toast__close" icon="close" label="Dismiss" disabled />);
    const button = screen.getByRole('button', { name: 'Dismiss' }) as HTMLButtonElement;
    expect(button.className).toBe('icon-button icon-button--small toast__close');
    expect(button.disabled).toBe(true);
    expect(button.querySelector('svg')?.getAttribute('width')).toBe('18');
  });

  it('is a link with `to`', () => {
    render(
      <MemoryRouter>
        <IconButton small to="/settings/users/3" icon="rename" label="Edit alice" />
      </MemoryRouter>,
    );
    const link = screen.getByRole('link', { name: 'Edit alice' });
    expect(link.getAttribute('href')).toBe('/settings/users/3');
    expect(link.getAttribute('title')).toBe('Edit alice');
  });
});
