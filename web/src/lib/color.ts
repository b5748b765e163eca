/** Branding colour (docs/api.md §5.3 `Color`) turned into the accent and a readable text colour on it. */

function parseHex(color: string): [number, number, number] | null {
  const m = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(color.trim());
  if (!m?.[1]) return null;
  const hex = m[1].length === 3 ? [...m[1]].map((c) => c + c).join('') : m[1];
  return [0, 2, 4].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)) as [number, number, number];
}

/** WCAG relative luminance of an sRGB colour. */
function luminance([r, g, b]: [number, number, number]): number {
  const lin = (c: number) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

export function contrastRatio(a: string, b: string): number | null {
  const pa = parseHex(a);
  const pb = parseHex(b);
  if (!pa || !pb) return null;
  const [hi, lo] = [luminance(pa), luminance(pb)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** The accent pair for a `#rgb`/`#rrggbb` branding colour, or null for anything else. */
export function brandAccent(color: string): { accent: string; onAccent: string } | null {
  const rgb = parseHex(color);
  if (!rgb) return null;
  const accent = color.trim().toLowerCase();
  const onWhite = contrastRatio(accent, '#ffffff') ?? 0;
  const onBlack = contrastRatio(accent, '#000000') ?? 0;
  return { accent, onAccent: onWhite >= onBlack ? '#ffffff' : '#000000' };
}
