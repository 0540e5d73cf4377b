import { Check, Copy } from 'lucide-react';
import { useEffect, useState } from 'react';
import { Button } from '../../components/Button';
import { copyText } from '../../lib/clipboard';

/**
 * Copies a short URL; its name says which ("Copy short link launch"), its text says what happened.
 * compact shows only the icon (a check once copied), with the text in the tooltip, for tight rows.
 */
export function CopyLinkButton({
  url,
  slug,
  variant = 'ghost',
  compact = false,
}: {
  url: string;
  slug: string;
  variant?: 'ghost' | 'secondary';
  compact?: boolean;
}) {
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
        aria-label={`${text} short link ${slug}`}
        title={compact ? `${text} ${url}` : url}
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
        {compact ? null : text}
      </Button>
      <span className="visually-hidden" role="status" aria-live="polite">
        {state === 'copied' ? `Copied ${url}` : state === 'failed' ? 'Copy failed; select the short URL and copy it by hand' : ''}
      </span>
    </>
  );
}
