/**
 * The editor of a text file (docs/client.md §2): CodeMirror, Save and Ctrl/Cmd+S (PUT /api/resources,
 * docs/client.md §7), an unsaved-changes mark, and the discardEditorChanges prompt before the screen is left with
 * unsaved text (toolbar, links, back/forward); the browser asks on unload. Read-only without the
 * modify permission.
 */
import { useQueryClient } from '@tanstack/react-query';
import type { EditorView } from '@codemirror/view';
import type { Text } from '@codemirror/state';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useBlocker } from 'react-router';
import { queryKeys } from '../../api/queryKeys';
import { saveResource, type Resource } from '../../api/resources';
import { folderOf } from '../../lib/paths';
import { usePrompts } from '../../stores/prompts';
import { useSession } from '../../stores/session';
import { toast } from '../../stores/toasts';
import type { ToolbarItem } from '../../components/OverflowToolbar';
import { FileScreenToolbar } from '../preview/FileScreenToolbar';
import { useFileActions, type LeaveReason } from '../preview/useFileActions';
import '../preview/preview.css';
import { CodeEditor, startNewUndoStep } from './CodeEditor';
import { askDiscardChanges } from './DiscardPrompt';
import './editor.css';

export interface EditorScreenProps {
  file: Resource;
  readOnly: boolean;
}

export default function EditorScreen({ file, readOnly }: EditorScreenProps) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const view = useRef<EditorView | null>(null);
  /** The text as last loaded or saved. */
  const saved = useRef<Text | null>(null);
  const [dirty, setDirty] = useState(false);
  const [saving, setSaving] = useState(false);
  /** Set once the user chose to leave: the navigation that follows is not asked about again. */
  const leaving = useRef(false);
  const dirtyRef = useRef(false);
  const initial = file.content ?? '';

  const markDirty = useCallback((next: boolean) => {
    dirtyRef.current = next;
    setDirty(next);
  }, []);

  const handleReady = useCallback((v: EditorView | null) => {
    view.current = v;
    if (v) saved.current = v.state.doc;
  }, []);

  const handleChange = useCallback(
    (doc: Text) => markDirty(!(saved.current && doc.eq(saved.current))),
    [markDirty],
  );

  // Newer text from the server (a refetch) replaces the shown text, unless the user has edits.
  useEffect(() => {
    const v = view.current;
    if (!v || dirtyRef.current || v.state.doc.toString() === initial) return;
    v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: initial } });
    saved.current = v.state.doc;
    markDirty(false);
  }, [initial, markDirty]);

  const save = useCallback(async (): Promise<boolean> => {
    const v = view.current;
    if (!v || readOnly) return false;
    const doc = v.state.doc;
    setSaving(true);
    try {
      await saveResource(file.path, doc.toString());
    } catch (err) {
      // docs/client.md §8: a failed save shows an error toast that stays until closed.
      toast.error(err instanceof Error ? err.message : String(err));
      return false;
    } finally {
      setSaving(false);
    }
    saved.current = doc;
    startNewUndoStep(v);
    markDirty(!v.state.doc.eq(doc));
    toast.success(t('editor.saved', { name: file.name }));
    void client.invalidateQueries({ queryKey: queryKeys.resource(file.path) });
    void client.invalidateQueries({ queryKey: queryKeys.resource(folderOf(file.path)) });
    return true;
  }, [readOnly, file.path, file.name, t, client, markDirty]);

  /** Asks before unsaved text is left behind; true when the screen may be left. */
  const confirmLeave = useCallback(async (): Promise<boolean> => {
    if (!dirtyRef.current) return true;
    const answer = await askDiscardChanges(file.name);
    if (answer === null) return false;
    if (answer === 'save' && !(await save())) return false;
    leaving.current = true;
    return true;
  }, [file.name, save]);

  const beforeLeave = useCallback(
    async (reason: LeaveReason) => {
      if (reason === 'delete') {
        leaving.current = true;
        return true;
      }
      return confirmLeave();
    },
    [confirmLeave],
  );
  const actions = useFileActions(file, beforeLeave);

  // Links, the sidebar and back/forward: held until the prompt is answered. A signed-out user
  // (logout, expired session) is not held on the page.
  const blocker = useBlocker(
    ({ currentLocation, nextLocation }) =>
      dirtyRef.current &&
      !leaving.current &&
      useSession.getState().user !== null &&
      currentLocation.pathname !== nextLocation.pathname,
  );
  const asking = useRef(false);
  useEffect(() => {
    if (blocker.state !== 'blocked' || asking.current) return;
    asking.current = true;
    void confirmLeave().then((ok) => {
      asking.current = false;
      if (ok) blocker.proceed();
      else blocker.reset();
    });
  }, [blocker, confirmLeave]);

  // Closing the tab or reloading: the browser's own question.
  useEffect(() => {
    if (!dirty) return;
    function handleBeforeUnload(e: BeforeUnloadEvent) {
      e.preventDefault();
    }
    window.addEventListener('beforeunload', handleBeforeUnload);
    return () => window.removeEventListener('beforeunload', handleBeforeUnload);
  }, [dirty]);

  // Ctrl/Cmd+S saves (or downloads a read-only file, as in the listing), wherever the focus is.
  const promptOpen = usePrompts((s) => s.stack.length > 0);
  const latest = useRef({ save, download: actions.download, canDownload: actions.can.download });
  useEffect(() => {
    latest.current = { save, download: actions.download, canDownload: actions.can.download };
  });
  useEffect(() => {
    if (promptOpen) return;
    function handleKeyDown(e: KeyboardEvent) {
      if (!(e.ctrlKey || e.metaKey) || e.shiftKey || e.altKey || e.key.toLowerCase() !== 's') return;
      e.preventDefault();
      if (!readOnly) void latest.current.save();
      else if (latest.current.canDownload) latest.current.download();
    }
    window.addEventListener('keydown', handleKeyDown, true);
    return () => window.removeEventListener('keydown', handleKeyDown, true);
  }, [promptOpen, readOnly]);

  const status = dirty ? t('editor.unsaved') : '';
  const controls: ToolbarItem[] = readOnly
    ? [
        {
          id: 'status',
          measure: t('editor.readOnly'),
          render: () => <span className="editor-status editor-status--readonly">{t('editor.readOnly')}</span>,
        },
      ]
    : [
        {
          action: {
            id: 'save',
            icon: 'save',
            label: saving ? t('editor.saving') : t('editor.save'),
            onRun: () => void save(),
            disabled: saving,
            shortcut: 'Control+S',
            highlight: dirty,
          },
          primary: true,
          leave: null,
        },
        {
          id: 'status',
          measure: status,
          render: () => (
            <span className="editor-status" role="status">
              {status}
            </span>
          ),
        },
      ];

  return (
    <div className="file-screen">
      <FileScreenToolbar actions={actions} controls={controls} />
      <div className="editor-stage">
        <CodeEditor
          key={file.path}
          name={file.name}
          initial={initial}
          readOnly={readOnly}
          label={t('editor.label', { name: file.name })}
          onChange={handleChange}
          onReady={handleReady}
        />
      </div>
    </div>
  );
}
