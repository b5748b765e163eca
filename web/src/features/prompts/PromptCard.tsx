/** A Modal placed at its prompt's level in the stack. */
import { Modal, type ModalProps } from '../../components/Modal';
import { usePromptLayer } from './layer';

export function PromptCard(props: Omit<ModalProps, 'active' | 'zIndex'>) {
  const layer = usePromptLayer();
  return <Modal {...props} active={layer.active} zIndex={layer.zIndex} />;
}
