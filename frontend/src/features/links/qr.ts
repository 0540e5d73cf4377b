/** An SVG document as a data: URL (for an img src or a download link). */
export function svgDataURL(svg: string): string {
  return `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
}

/** Draws an SVG on a canvas of size pixels and returns it as a PNG data: URL. */
export function svgToPNG(svg: string, size: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const img = new Image(size, size);
    img.onload = () => {
      const canvas = document.createElement('canvas');
      canvas.width = size;
      canvas.height = size;
      const ctx = canvas.getContext('2d');
      if (!ctx) {
        reject(new Error('This browser cannot draw images.'));
        return;
      }
      ctx.imageSmoothingEnabled = false;
      ctx.fillStyle = '#fff';
      ctx.fillRect(0, 0, size, size);
      ctx.drawImage(img, 0, 0, size, size);
      resolve(canvas.toDataURL('image/png'));
    };
    img.onerror = () => reject(new Error('Could not draw the QR code.'));
    img.src = svgDataURL(svg);
  });
}

/** Saves a data: URL as a file through a temporary download link. */
export function download(href: string, filename: string): void {
  const a = document.createElement('a');
  a.href = href;
  a.download = filename;
  document.body.appendChild(a);
  a.click();
  a.remove();
}
