import { describe, expect, it } from 'vitest';
import { languageFor } from './languages';

describe('languageFor', () => {
  it.each([
    ['app.js', 'javascript'],
    ['index.MJS', 'javascript'],
    ['Component.tsx', 'tsx'],
    ['main.ts', 'typescript'],
    ['package.json', 'json'],
    ['README.md', 'markdown'],
    ['style.scss', 'scss'],
    ['page.html', 'html'],
    ['script.py', 'python'],
    ['config.yml', 'yaml'],
    ['feed.xml', 'xml'],
    ['query.sql', 'sql'],
    ['lib.rs', 'rust'],
    ['main.go', 'go'],
    ['Main.java', 'java'],
    ['vector.hpp', 'cpp'],
    ['index.php', 'php'],
    ['run.sh', 'shell'],
    ['Cargo.toml', 'toml'],
    ['settings.ini', 'properties'],
    ['fix.patch', 'diff'],
  ])('%s is %s', (name, id) => {
    expect(languageFor(name)).toBe(id);
  });

  it('knows files by their whole name', () => {
    expect(languageFor('Dockerfile')).toBe('dockerfile');
    expect(languageFor('Dockerfile.dev')).toBe('dockerfile');
    expect(languageFor('Gemfile')).toBe('ruby');
    expect(languageFor('nginx.conf')).toBe('nginx');
  });

  it('reads dotfiles by the name after the dot', () => {
    expect(languageFor('.bashrc')).toBe('shell');
    expect(languageFor('.editorconfig')).toBe('properties');
  });

  it('leaves unknown and extension-less names as plain text', () => {
    expect(languageFor('notes.txt')).toBeNull();
    expect(languageFor('LICENSE')).toBeNull();
    expect(languageFor('archive.tar.unknown')).toBeNull();
    expect(languageFor('trailing.')).toBeNull();
  });
});
