/** The fields a one-line preview of a message needs. */
export interface PreviewableMessage {
  type: string;
  text?: string | null;
  media?: { caption: string } | null;
  location?: { name: string } | null;
  contact?: { name: string } | null;
  poll?: { question: string } | null;
  reaction?: { emoji: string } | null;
}

/** A message as one line of text: its text, or what it carries. */
export function messagePreview(m: PreviewableMessage): string {
  if (m.text) return m.text;
  switch (m.type) {
    case 'location':
      return `📍 ${m.location?.name || 'Location'}`;
    case 'contact':
      return `👤 ${m.contact?.name ?? 'Contact'}`;
    case 'poll':
      return `📊 ${m.poll?.question ?? 'Poll'}`;
    case 'reaction':
      return m.reaction?.emoji ? `Reacted ${m.reaction.emoji}` : 'Removed a reaction';
  }
  if (m.media?.caption) return `[${m.type}] ${m.media.caption}`;
  return `[${m.type}]`;
}

/** Addresses typed one per line or separated by commas, spaces or semicolons. */
export function parseAddresses(s: string): string[] {
  return [...new Set(s.split(/[\s,;]+/).map((a) => a.trim()).filter(Boolean))];
}

/** Labels typed separated by commas. */
export function parseLabels(s: string): string[] {
  return [...new Set(s.split(',').map((l) => l.trim()).filter(Boolean))];
}
