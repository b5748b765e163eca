import { describe, expect, it } from 'vitest';
import { config, externalUrl, productName } from './config';

describe('productName', () => {
  it('is Coffer when branding names nothing, and the page config keeps the empty name', () => {
    expect(config.Name).toBe('');
    expect(productName()).toBe('Coffer');
  });
});

describe('externalUrl', () => {
  const links = { ...config, ProjectURL: 'https://example.org/coffer', IssuesURL: 'https://example.org/coffer/issues' };

  it('gives the configured http(s) addresses', () => {
    expect(externalUrl('ProjectURL', links)).toBe('https://example.org/coffer');
    expect(externalUrl('IssuesURL', links)).toBe('https://example.org/coffer/issues');
  });

  it('gives none by default, for other schemes, or when branding disables external links', () => {
    expect(externalUrl('ProjectURL')).toBeNull();
    expect(externalUrl('IssuesURL')).toBeNull();
    expect(externalUrl('ProjectURL', { ...links, ProjectURL: 'javascript:alert(1)' })).toBeNull();
    expect(externalUrl('ProjectURL', { ...links, ProjectURL: '/relative' })).toBeNull();
    expect(externalUrl('ProjectURL', { ...links, DisableExternal: true })).toBeNull();
    expect(externalUrl('IssuesURL', { ...links, DisableExternal: true })).toBeNull();
  });
});
