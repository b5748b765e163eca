/** The editor's syntax highlighting language for a file name: by extension, or by a few well-known names. */

export type LanguageId =
  | 'javascript'
  | 'jsx'
  | 'typescript'
  | 'tsx'
  | 'json'
  | 'css'
  | 'scss'
  | 'sass'
  | 'less'
  | 'html'
  | 'markdown'
  | 'python'
  | 'xml'
  | 'yaml'
  | 'sql'
  | 'rust'
  | 'go'
  | 'java'
  | 'cpp'
  | 'php'
  | 'shell'
  | 'toml'
  | 'properties'
  | 'dockerfile'
  | 'ruby'
  | 'lua'
  | 'diff'
  | 'nginx';

const BY_EXTENSION: Record<string, LanguageId> = {
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  jsx: 'jsx',
  ts: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  tsx: 'tsx',
  json: 'json',
  jsonc: 'json',
  json5: 'json',
  webmanifest: 'json',
  map: 'json',
  css: 'css',
  scss: 'scss',
  sass: 'sass',
  less: 'less',
  html: 'html',
  htm: 'html',
  xhtml: 'html',
  vue: 'html',
  svelte: 'html',
  md: 'markdown',
  markdown: 'markdown',
  mdx: 'markdown',
  py: 'python',
  pyw: 'python',
  pyi: 'python',
  xml: 'xml',
  svg: 'xml',
  xsd: 'xml',
  xsl: 'xml',
  xslt: 'xml',
  plist: 'xml',
  rss: 'xml',
  atom: 'xml',
  csproj: 'xml',
  yml: 'yaml',
  yaml: 'yaml',
  sql: 'sql',
  rs: 'rust',
  go: 'go',
  java: 'java',
  c: 'cpp',
  h: 'cpp',
  cc: 'cpp',
  cpp: 'cpp',
  cxx: 'cpp',
  hh: 'cpp',
  hpp: 'cpp',
  hxx: 'cpp',
  ino: 'cpp',
  php: 'php',
  phtml: 'php',
  sh: 'shell',
  bash: 'shell',
  zsh: 'shell',
  ksh: 'shell',
  bashrc: 'shell',
  zshrc: 'shell',
  profile: 'shell',
  toml: 'toml',
  ini: 'properties',
  cfg: 'properties',
  conf: 'properties',
  properties: 'properties',
  env: 'properties',
  editorconfig: 'properties',
  gitconfig: 'properties',
  dockerfile: 'dockerfile',
  rb: 'ruby',
  gemspec: 'ruby',
  rake: 'ruby',
  lua: 'lua',
  diff: 'diff',
  patch: 'diff',
};

/** Names without a telling extension (compared without case). */
const BY_NAME: Record<string, LanguageId> = {
  dockerfile: 'dockerfile',
  containerfile: 'dockerfile',
  gemfile: 'ruby',
  rakefile: 'ruby',
  'nginx.conf': 'nginx',
  '.bash_profile': 'shell',
  '.bash_logout': 'shell',
  pkgbuild: 'shell',
};

/** The language of `name`, or null for plain text. */
export function languageFor(name: string): LanguageId | null {
  const lower = name.toLowerCase();
  const named = BY_NAME[lower];
  if (named) return named;
  if (lower.startsWith('dockerfile.')) return 'dockerfile';
  const dot = lower.lastIndexOf('.');
  if (dot < 0) return null;
  return BY_EXTENSION[lower.slice(dot + 1)] ?? null;
}
