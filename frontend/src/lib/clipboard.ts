/** Copies text, falling back to a hidden textarea where the Clipboard API is unavailable
 * (for example on plain http:// origins other than localhost). */
export async function copyText(text: string): Promise<void> {
  if (navigator.clipboard?.writeText) {
    try {
      await navigator.clipboard.writeText(text);
      return;
    } catch {
      // fall through to the legacy path (permission denied, document not focused, ...)
    }
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.appendChild(area);
  area.select();
  const ok = document.execCommand?.('copy') ?? false;
  document.body.removeChild(area);
  if (!ok) throw new Error('Copy failed. Select the text and copy it by hand.');
}
