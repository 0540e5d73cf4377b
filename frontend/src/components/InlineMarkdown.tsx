import { Fragment, type ReactNode } from 'react';

/**
 * Renders the small subset of Markdown that API descriptions use — `code`, **bold** and
 * [links](https://…) — as React elements. Never injects HTML.
 */
export function InlineMarkdown({ text }: { text: string }) {
  const out: ReactNode[] = [];
  const pattern = /`([^`]+)`|\*\*([^*]+)\*\*|\[([^\]]+)\]\(([^)\s]+)\)/g;
  let last = 0;
  let m: RegExpExecArray | null;
  while ((m = pattern.exec(text))) {
    if (m.index > last) out.push(text.slice(last, m.index));
    if (m[1] !== undefined) out.push(<code key={m.index}>{m[1]}</code>);
    else if (m[2] !== undefined) out.push(<strong key={m.index}>{m[2]}</strong>);
    else if (m[3] !== undefined && m[4] !== undefined) {
      const href = /^(https?:\/\/|\/|#)/.test(m[4]) ? m[4] : undefined;
      out.push(
        href ? (
          <a key={m.index} href={href}>
            {m[3]}
          </a>
        ) : (
          <Fragment key={m.index}>{m[3]}</Fragment>
        ),
      );
    }
    last = pattern.lastIndex;
  }
  if (last < text.length) out.push(text.slice(last));
  return <>{out}</>;
}
