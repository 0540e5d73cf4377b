import { render } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { InlineMarkdown } from './InlineMarkdown';

describe('InlineMarkdown', () => {
  it('renders code, bold and safe links, and never HTML', () => {
    const { container } = render(
      <p>
        <InlineMarkdown text="Retry after `Retry-After` seconds, **once**. See [docs](https://x.example) or [bad](javascript:alert(1)) <b>x</b>" />
      </p>,
    );
    expect(container.querySelector('code')?.textContent).toBe('Retry-After');
    expect(container.querySelector('strong')?.textContent).toBe('once');
    expect(container.querySelectorAll('a')).toHaveLength(1);
    expect(container.querySelector('a')?.getAttribute('href')).toBe('https://x.example');
    expect(container.querySelector('b')).toBeNull();
    expect(container.textContent).toContain('<b>x</b>');
  });
});
