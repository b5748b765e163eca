import { createContext, useContext } from 'react';
import { MODAL_BASE_Z } from '../../lib/limits';

/** Where a prompt sits in the stack: only the top one is active; z-index 1000 + 2 per level (docs/client.md §9). */
export interface Layer {
  active: boolean;
  zIndex: number;
}

export const LayerContext = createContext<Layer>({ active: true, zIndex: MODAL_BASE_Z });

export function usePromptLayer(): Layer {
  return useContext(LayerContext);
}
