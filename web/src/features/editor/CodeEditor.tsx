/**
 * CodeMirror 6 on a file's text: line numbers, history, search, bracket matching, line wrapping,
 * the language of the file name (loaded on demand), colours that follow the app's light/dark theme,
 * and the search panel's words in the user's language.
 */
import { closeBrackets, closeBracketsKeymap } from '@codemirror/autocomplete';
import {
  defaultKeymap,
  history,
  historyKeymap,
  indentWithTab,
  isolateHistory,
} from '@codemirror/commands';
import {
  bracketMatching,
  defaultHighlightStyle,
  indentOnInput,
  syntaxHighlighting,
} from '@codemirror/language';
import { highlightSelectionMatches, searchKeymap } from '@codemirror/search';
import { Compartment, EditorState, type Extension, type Text } from '@codemirror/state';
import { oneDarkHighlightStyle } from '@codemirror/theme-one-dark';
import {
  crosshairCursor,
  drawSelection,
  dropCursor,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  highlightSpecialChars,
  keymap,
  lineNumbers,
  rectangularSelection,
} from '@codemirror/view';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { languageFor } from './languages';
import { loadLanguage } from './languageSupport';

/**
 * Closes the current undo step: typing that follows starts a new one, so one undo after a save
 * returns to the saved text even when the typing came right after the last keystroke saved
 * (CodeMirror joins changes less than 500 ms apart into one step).
 */
export function startNewUndoStep(view: EditorView): void {
  view.dispatch({ annotations: isolateHistory.of('full') });
}

/** Colours from the app's design tokens, so the editor sits in the page in both themes. */
function baseTheme(dark: boolean): Extension {
  return [
    EditorView.theme(
      {
        '&': { backgroundColor: 'var(--surface)', color: 'var(--text)', height: '100%' },
        '.cm-scroller': {
          fontFamily: "ui-monospace, 'SFMono-Regular', 'DejaVu Sans Mono', Menlo, Consolas, monospace",
          fontSize: '14px',
          lineHeight: '1.55',
        },
        '.cm-content': { caretColor: 'var(--text)' },
        '.cm-cursor, .cm-dropCursor': { borderLeftColor: 'var(--text)' },
        '.cm-gutters': {
          backgroundColor: 'var(--surface-2)',
          color: 'var(--text-muted)',
          borderInlineEnd: '1px solid var(--border)',
        },
        '.cm-activeLine': { backgroundColor: dark ? 'rgb(255 255 255 / 5%)' : 'rgb(28 95 209 / 6%)' },
        '.cm-activeLineGutter': { backgroundColor: 'var(--surface-hover)', color: 'var(--text)' },
        '&.cm-focused .cm-selectionBackground, .cm-selectionBackground, .cm-content ::selection': {
          backgroundColor: dark ? 'rgb(138 180 248 / 30%)' : 'rgb(28 95 209 / 22%)',
        },
        '.cm-panels': { backgroundColor: 'var(--surface-2)', color: 'var(--text)' },
        '.cm-panels.cm-panels-bottom': { borderBlockStart: '1px solid var(--border)' },
        '.cm-textfield': {
          backgroundColor: 'var(--surface)',
          color: 'var(--text)',
          border: '1px solid var(--border)',
          borderRadius: '6px',
        },
        '.cm-button': {
          backgroundImage: 'none',
          backgroundColor: 'var(--surface)',
          color: 'var(--text)',
          border: '1px solid var(--border)',
          borderRadius: '6px',
        },
        '.cm-searchMatch': { backgroundColor: dark ? 'rgb(255 213 79 / 25%)' : 'rgb(255 213 79 / 55%)' },
        '.cm-selectionMatch': { backgroundColor: dark ? 'rgb(159 216 173 / 18%)' : 'rgb(29 115 56 / 14%)' },
      },
      { dark },
    ),
    syntaxHighlighting(dark ? oneDarkHighlightStyle : defaultHighlightStyle, { fallback: true }),
  ];
}

const isDark = () => document.documentElement.classList.contains('dark');

export interface CodeEditorProps {
  /** The file name picks the language. */
  name: string;
  initial: string;
  readOnly: boolean;
  /** Accessible name of the text area. */
  label: string;
  onChange: (doc: Text) => void;
  onReady: (view: EditorView | null) => void;
}

export function CodeEditor({ name, initial, readOnly, label, onChange, onReady }: CodeEditorProps) {
  const { t } = useTranslation();
  const host = useRef<HTMLDivElement>(null);
  // The view is made once per mount; later prop changes go through compartments or refs.
  const start = useRef({ initial, readOnly, label, onChange, onReady, t });
  useEffect(() => {
    start.current.onChange = onChange;
    start.current.onReady = onReady;
  }, [onChange, onReady]);

  useEffect(() => {
    const parent = host.current;
    if (!parent) return;
    // One object, kept current by the effect above: callbacks read through it stay fresh.
    const callbacks = start.current;
    const { initial: doc, readOnly: ro, label: aria, t: tr } = callbacks;
    const theme = new Compartment();
    const language = new Compartment();
    const phrases: Record<string, string> = {
      Find: tr('editor.search.find'),
      Replace: tr('editor.search.replace'),
      next: tr('editor.search.next'),
      previous: tr('editor.search.previous'),
      all: tr('editor.search.all'),
      'match case': tr('editor.search.matchCase'),
      'by word': tr('editor.search.byWord'),
      regexp: tr('editor.search.regexp'),
      replace: tr('editor.search.replaceOne'),
      'replace all': tr('editor.search.replaceAll'),
      close: tr('editor.search.close'),
      'current match': tr('editor.search.currentMatch'),
      'on line': tr('editor.search.onLine'),
      'replaced $ matches': tr('editor.search.replacedMatches', { n: '$' }),
      'replaced match on line $': tr('editor.search.replacedOnLine', { n: '$' }),
      'Go to line': tr('editor.search.goToLine'),
      go: tr('editor.search.go'),
      'Control character': tr('editor.controlCharacter'),
      'Selection deleted': tr('editor.selectionDeleted'),
    };
    const view = new EditorView({
      parent,
      state: EditorState.create({
        doc,
        extensions: [
          lineNumbers(),
          highlightActiveLineGutter(),
          highlightSpecialChars(),
          history(),
          drawSelection(),
          dropCursor(),
          EditorState.allowMultipleSelections.of(true),
          indentOnInput(),
          bracketMatching(),
          closeBrackets(),
          rectangularSelection(),
          crosshairCursor(),
          highlightActiveLine(),
          highlightSelectionMatches(),
          keymap.of([
            ...closeBracketsKeymap,
            ...defaultKeymap,
            ...searchKeymap,
            ...historyKeymap,
            // Escape, then Tab, still leaves the editor (CodeMirror's rule for indentWithTab).
            indentWithTab,
          ]),
          EditorView.lineWrapping,
          EditorView.perLineTextDirection.of(true),
          EditorState.readOnly.of(ro),
          EditorState.phrases.of(phrases),
          EditorView.contentAttributes.of({ 'aria-label': aria }),
          theme.of(baseTheme(isDark())),
          language.of([]),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) callbacks.onChange(update.state.doc);
          }),
        ],
      }),
    });
    callbacks.onReady(view);

    // The theme is a class on the root element (docs/client.md §4 "Theme"): follow it while open.
    const observer = new MutationObserver(() =>
      view.dispatch({ effects: theme.reconfigure(baseTheme(isDark())) }),
    );
    observer.observe(document.documentElement, { attributes: true, attributeFilter: ['class'] });

    let live = true;
    const id = languageFor(name);
    if (id) {
      loadLanguage(id)
        .then((support) => {
          if (live) view.dispatch({ effects: language.reconfigure(support) });
        })
        // Without its language the text stays plain: still fully editable.
        .catch(() => undefined);
    }
    return () => {
      live = false;
      observer.disconnect();
      callbacks.onReady(null);
      view.destroy();
    };
  }, [name]);

  return <div ref={host} className="code-editor" dir="ltr" />;
}
