import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { InstanceStatusBadge, ReceiptTicks } from './status';
import { messagePreview, parseAddresses, parseLabels } from './text';

describe('ReceiptTicks', () => {
  it.each([
    ['queued', 'Queued'],
    ['sent', 'Sent'],
    ['delivered', 'Delivered'],
    ['read', 'Read'],
    ['failed', 'Failed'],
  ])('%s is announced as %s', (status, label) => {
    render(<ReceiptTicks status={status} />);
    expect(screen.getByRole('img', { name: label })).toHaveAttribute('data-status', status);
  });

  it('says why a message failed', () => {
    render(<ReceiptTicks status="failed" error="+15550001234 is not on the sandbox network" />);
    expect(screen.getByRole('img', { name: 'Failed: +15550001234 is not on the sandbox network' })).toBeInTheDocument();
  });
});

describe('InstanceStatusBadge', () => {
  it('names the status in words, with a failure reason as its title', () => {
    render(<InstanceStatusBadge status="failed" reason="token rejected" />);
    expect(screen.getByText('Failed')).toHaveAttribute('title', 'token rejected');
  });
});

describe('text helpers', () => {
  it('previews every message type in one line', () => {
    expect(messagePreview({ type: 'text', text: 'Hi' })).toBe('Hi');
    expect(messagePreview({ type: 'image', media: { caption: 'A cat' } })).toBe('[image] A cat');
    expect(messagePreview({ type: 'poll', poll: { question: 'Lunch?' } })).toBe('📊 Lunch?');
    expect(messagePreview({ type: 'reaction', reaction: { emoji: '' } })).toBe('Removed a reaction');
  });

  it('splits addresses and labels, dropping blanks and repeats', () => {
    expect(parseAddresses('+15551230001, +15551230002\n+15551230001 ;')).toEqual(['+15551230001', '+15551230002']);
    expect(parseLabels('vip, beta,, vip ')).toEqual(['vip', 'beta']);
  });
});
