import { Check, Copy } from 'lucide-react';
import { useEffect, useState } from 'react';
import { Button } from '../../components/Button';
import { copyText } from '../../lib/clipboard';

/** Copies an endpoint's URL; its name says whose ("Copy URL of New orders"), its text what happened. */
export function CopyUrlButton({ url, name, variant = 'ghost' }: { url: string; name: string; variant?: 'ghost' | 'secondary' }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const t = setTimeout(() => setState('idle'), 2000);
    return () => clearTimeout(t);
  }, [state]);
  const text = state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : 'Copy';
  return (
    <>
      <Button
        size="sm"
        variant={variant}
        aria-label={`${text} URL of ${name}`}
        title={url}
        icon={state === 'copied' ? <Check size={14} aria-hidden="true" /> : <Copy size={14} aria-hidden="true" />}
        onClick={async () => {
          try {
            await copyText(url);
            setState('copied');
          } catch {
            setState('failed');
          }
        }}
      >
        {text}
      </Button>
      <span className="visually-hidden" role="status" aria-live="polite">
        {state === 'copied' ? `Copied ${url}` : state === 'failed' ? 'Copy failed; select the URL and copy it by hand' : ''}
      </span>
    </>
  );
}
