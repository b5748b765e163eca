/** The error and success prompts (docs/client.md §2 prompt list): a title, the message and OK. */
import { useTranslation } from 'react-i18next';
import { Icon } from '../../components/Icon';
import { openPrompt, type PromptProps } from '../../stores/prompts';
import { PromptCard } from './PromptCard';

function messagePrompt(kind: 'error' | 'success', message: string) {
  return function MessagePrompt({ resolve }: PromptProps<true>) {
    const { t } = useTranslation();
    return (
      <PromptCard
        title={t(kind === 'error' ? 'prompts.error' : 'prompts.success')}
        onEnter={() => resolve(true)}
        actions={
          <button
            type="button"
            className="button button--primary"
            data-autofocus
            onClick={() => resolve(true)}
          >
            {t('common.ok')}
          </button>
        }
      >
        <p className={`prompt-message prompt-message--${kind}`}>
          <Icon name={kind === 'error' ? 'error' : 'check'} />
          <span>{message}</span>
        </p>
      </PromptCard>
    );
  };
}

export function showErrorPrompt(message: string): Promise<true | null> {
  return openPrompt(messagePrompt('error', message));
}

export function showSuccessPrompt(message: string): Promise<true | null> {
  return openPrompt(messagePrompt('success', message));
}
