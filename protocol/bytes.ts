// Byte counts in binary units, one rule for the plugin, the PDFs and the dashboard (the restored
// volumes' sizes, issue 27): "512 B", "24.5 MiB", "1.0 GiB" in text; kubectl's compact quantity
// suffixes in the plugin's tables ("512B", "24.5Mi").

const UNITS = ['Ki', 'Mi', 'Gi', 'Ti'] as const;

export function binaryBytes(bytes: number, style: 'text' | 'kubectl' = 'text'): string {
  const gap = style === 'text' ? ' ' : '';
  if (bytes < 1024) return `${bytes}${gap}B`;
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(1)}${gap}${UNITS[unit]}${style === 'text' ? 'B' : ''}`;
}
