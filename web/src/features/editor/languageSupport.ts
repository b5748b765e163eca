/** Loads the CodeMirror support of a language on demand: each language is its own chunk. */
import { StreamLanguage, type StreamParser } from '@codemirror/language';
import type { Extension } from '@codemirror/state';
import type { LanguageId } from './languages';

const legacy = <T>(parser: StreamParser<T>): Extension => StreamLanguage.define(parser);

const LOADERS: Record<LanguageId, () => Promise<Extension>> = {
  javascript: () => import('@codemirror/lang-javascript').then((m) => m.javascript()),
  jsx: () => import('@codemirror/lang-javascript').then((m) => m.javascript({ jsx: true })),
  typescript: () => import('@codemirror/lang-javascript').then((m) => m.javascript({ typescript: true })),
  tsx: () =>
    import('@codemirror/lang-javascript').then((m) => m.javascript({ jsx: true, typescript: true })),
  json: () => import('@codemirror/lang-json').then((m) => m.json()),
  css: () => import('@codemirror/lang-css').then((m) => m.css()),
  scss: () => import('@codemirror/lang-sass').then((m) => m.sass()),
  sass: () => import('@codemirror/lang-sass').then((m) => m.sass({ indented: true })),
  less: () => import('@codemirror/legacy-modes/mode/css').then((m) => legacy(m.less)),
  html: () => import('@codemirror/lang-html').then((m) => m.html()),
  markdown: () => import('@codemirror/lang-markdown').then((m) => m.markdown()),
  python: () => import('@codemirror/lang-python').then((m) => m.python()),
  xml: () => import('@codemirror/lang-xml').then((m) => m.xml()),
  yaml: () => import('@codemirror/lang-yaml').then((m) => m.yaml()),
  sql: () => import('@codemirror/lang-sql').then((m) => m.sql()),
  rust: () => import('@codemirror/lang-rust').then((m) => m.rust()),
  go: () => import('@codemirror/lang-go').then((m) => m.go()),
  java: () => import('@codemirror/lang-java').then((m) => m.java()),
  cpp: () => import('@codemirror/lang-cpp').then((m) => m.cpp()),
  php: () => import('@codemirror/lang-php').then((m) => m.php()),
  shell: () => import('@codemirror/legacy-modes/mode/shell').then((m) => legacy(m.shell)),
  toml: () => import('@codemirror/legacy-modes/mode/toml').then((m) => legacy(m.toml)),
  properties: () => import('@codemirror/legacy-modes/mode/properties').then((m) => legacy(m.properties)),
  dockerfile: () => import('@codemirror/legacy-modes/mode/dockerfile').then((m) => legacy(m.dockerFile)),
  ruby: () => import('@codemirror/legacy-modes/mode/ruby').then((m) => legacy(m.ruby)),
  lua: () => import('@codemirror/legacy-modes/mode/lua').then((m) => legacy(m.lua)),
  diff: () => import('@codemirror/legacy-modes/mode/diff').then((m) => legacy(m.diff)),
  nginx: () => import('@codemirror/legacy-modes/mode/nginx').then((m) => legacy(m.nginx)),
};

export function loadLanguage(id: LanguageId): Promise<Extension> {
  return LOADERS[id]();
}
