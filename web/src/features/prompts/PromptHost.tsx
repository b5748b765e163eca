/** Renders the prompt stack (stores/prompts.ts); Escape closes only the current card. */
import { useEffect } from 'react';
import { MODAL_BASE_Z, MODAL_Z_STEP } from '../../lib/limits';
import { closeTopPrompt, usePrompts } from '../../stores/prompts';
import { LayerContext } from './layer';

export function PromptHost() {
  const stack = usePrompts((s) => s.stack);
  const open = stack.length > 0;

  useEffect(() => {
    if (!open) return;
    function handleKeyDown(e: KeyboardEvent) {
      if (e.key !== 'Escape') return;
      e.preventDefault();
      e.stopPropagation();
      closeTopPrompt();
    }
    window.addEventListener('keydown', handleKeyDown, true);
    return () => window.removeEventListener('keydown', handleKeyDown, true);
  }, [open]);

  return (
    <>
      {stack.map((entry, i) => {
        const Render = entry.render;
        const layer = { active: i === stack.length - 1, zIndex: MODAL_BASE_Z + i * MODAL_Z_STEP };
        return (
          <LayerContext.Provider key={entry.id} value={layer}>
            <Render resolve={entry.settle} dismiss={() => entry.settle(null)} />
          </LayerContext.Provider>
        );
      })}
    </>
  );
}
