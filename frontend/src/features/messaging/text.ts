/** The fields a one-line preview of a message needs. */
export interface PreviewableMessage {
  type: string;
  text?: string | null;
  media?: { caption: string } | null;
  location?: { name: string } | null;
  contact?: { name: string } | null;
  poll?: { question: string } | null;
  reaction?: { emoji: string } | null;
  template?: { name: string; language: string } | null;
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
    case 'template':
      return m.template ? `Template ${m.template.name} (${m.template.language})` : 'Template';
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

/** A file size for people: 512 B, 2.4 kB, 18 MB. */
export function formatSize(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  const units = ['kB', 'MB', 'GB'];
  let v = bytes / 1000;
  let i = 0;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}

const notStoredReasons: Record<string, string> = {
  too_large: 'too large',
  type_not_allowed: 'type not allowed',
  unavailable: 'the provider no longer has it',
};

/** Why a received file has no URL: "file not stored: too large". */
export function notStoredText(reason: string): string {
  return `file not stored: ${notStoredReasons[reason] ?? reason.replace(/_/g, ' ')}`;
}
