import { Check, Copy } from 'lucide-react';
import { useEffect, useState } from 'react';
import { copyText } from '../lib/clipboard';
import { Button, type ButtonVariant } from './Button';

export function CopyButton({
  text,
  label = 'Copy',
  variant = 'secondary',
  size = 'sm',
  onCopied,
  focusOnOpen,
}: {
  text: string;
  label?: string;
  variant?: ButtonVariant;
  size?: 'sm' | 'md';
  onCopied?: () => void;
  /** Receive focus when the surrounding dialog opens. */
  focusOnOpen?: boolean;
}) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const t = setTimeout(() => setState('idle'), 2000);
    return () => clearTimeout(t);
  }, [state]);
  return (
    <>
      <Button
        variant={variant}
        size={size}
        data-autofocus={focusOnOpen ? '' : undefined}
        icon={state === 'copied' ? <Check size={14} aria-hidden="true" /> : <Copy size={14} aria-hidden="true" />}
        onClick={async () => {
          try {
            await copyText(text);
            setState('copied');
            onCopied?.();
          } catch {
            setState('failed');
          }
        }}
      >
        {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : label}
      </Button>
      <span className="visually-hidden" role="status" aria-live="polite">
        {state === 'copied' ? 'Copied to clipboard' : state === 'failed' ? 'Copy failed; select the text and copy it by hand' : ''}
      </span>
    </>
  );
}
