import { describe, expect, it } from 'vitest';
import { toolbarPlace, type FileAction } from './actions';

const action = (id: FileAction['id'], pressed?: boolean): FileAction => ({
  id,
  label: id,
  icon: 'file',
  onRun: () => undefined,
  pressed,
});

describe('toolbarPlace', () => {
  it("names the selection's actions with a selection, new folder, new file and upload without", () => {
    expect(toolbarPlace(action('copy'), true, false).primary).toBe(true);
    expect(toolbarPlace(action('newFolder'), true, false).primary).toBe(false);
    expect(toolbarPlace(action('newFolder'), false, false).primary).toBe(true);
    expect(toolbarPlace(action('info'), false, false).primary).toBe(false);
  });

  it('names nothing on a phone', () => {
    expect(toolbarPlace(action('copy'), true, true).primary).toBe(false);
    expect(toolbarPlace(action('upload'), false, true).primary).toBe(false);
  });

  it('sends the folder actions to the menu first with a selection, the selection actions last', () => {
    const leave = (id: FileAction['id']) => toolbarPlace(action(id), true, false).leave ?? Infinity;
    expect(leave('newFile')).toBeLessThan(leave('info'));
    expect(leave('info')).toBeLessThan(leave('delete'));
    expect(leave('delete')).toBeLessThan(leave('copy'));
  });

  it('keeps a toggle that is on in the bar', () => {
    expect(toolbarPlace(action('selectMultiple', true), true, false).leave).toBeNull();
    expect(toolbarPlace(action('shell', true), false, true).leave).toBeNull();
    expect(toolbarPlace(action('shell', false), false, true).leave).toBe(0);
  });
});
