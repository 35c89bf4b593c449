// The look of the evidence reports: page geometry, colours, status pills, fonts, and the shapes
// of table columns and cells that layout.ts and table.ts draw.

export const A4 = { width: 595.28, height: 841.89 };
export const MARGIN = { top: 64, bottom: 64, left: 54, right: 54 };

export const COLOR = {
  ink: '#1D2430',
  muted: '#5B6573',
  faint: '#8A94A3',
  rule: '#CDD3DB',
  hairline: '#E3E7EC',
  headerFill: '#EDF0F4',
  zebra: '#F8F9FB',
  accent: '#1F3A5F',
  accentSoft: '#E8EEF6',
  calloutFill: '#F4F6F9',
};

export type StatusKey =
  | 'satisfied'
  | 'at_risk'
  | 'not_tested'
  | 'pass'
  | 'partial'
  | 'fail'
  | 'error'
  | 'skip'
  | 'verified'
  | 'unverified'
  | 'unsigned'
  | 'remediated'
  | 'late'
  | 'pending'
  | 'unremediated';

/** Restrained colours; the word is always printed as well, so the report works in greyscale. */
export const STATUS_STYLE: Record<StatusKey, { label: string; fg: string; bg: string }> = {
  satisfied: { label: 'SATISFIED', fg: '#1B6B34', bg: '#E2F1E6' },
  at_risk: { label: 'AT RISK', fg: '#8A4B00', bg: '#FCEFD8' },
  not_tested: { label: 'NOT TESTED', fg: '#4F5866', bg: '#E9ECEF' },
  pass: { label: 'PASS', fg: '#1B6B34', bg: '#E2F1E6' },
  partial: { label: 'PARTIAL', fg: '#8A4B00', bg: '#FCEFD8' },
  fail: { label: 'FAIL', fg: '#9E2A24', bg: '#F8E3E1' },
  error: { label: 'ERROR', fg: '#9E2A24', bg: '#F8E3E1' },
  skip: { label: 'SKIP', fg: '#4F5866', bg: '#E9ECEF' },
  verified: { label: 'VERIFIED', fg: '#1B6B34', bg: '#E2F1E6' },
  unverified: { label: 'NOT VERIFIED', fg: '#9E2A24', bg: '#F8E3E1' },
  unsigned: { label: 'UNSIGNED', fg: '#4F5866', bg: '#E9ECEF' },
  remediated: { label: 'REMEDIATED', fg: '#1B6B34', bg: '#E2F1E6' },
  late: { label: 'LATE', fg: '#8A4B00', bg: '#FCEFD8' },
  pending: { label: 'PENDING', fg: '#8A4B00', bg: '#FCEFD8' },
  unremediated: { label: 'UNREMEDIATED', fg: '#9E2A24', bg: '#F8E3E1' },
};

export type FontName = 'regular' | 'bold' | 'italic' | 'mono';
export const FONTS: Record<FontName, string> = {
  regular: 'Helvetica',
  bold: 'Helvetica-Bold',
  italic: 'Helvetica-Oblique',
  mono: 'Courier',
};

export interface CellSpec {
  text: string;
  font?: FontName;
  color?: string;
  /** A second, smaller, muted line (e.g. a control's title under its id). */
  sub?: string;
  /** Draw as a status pill instead of text. */
  status?: StatusKey;
  /** Text after a status pill, on the next line (e.g. "2 remediated"). */
  note?: string;
}
export type Cell = string | CellSpec;

export interface Column<R> {
  header: string;
  /** Relative width; the columns share the content width in these proportions. */
  width: number;
  align?: 'left' | 'right' | 'center';
  cell: (row: R, index: number) => Cell;
}

export interface TableOptions {
  fontSize?: number;
  /** Tighter cell padding for long listings. */
  compact?: boolean;
  zebra?: boolean;
  /** Shown instead of an empty table. */
  empty?: string;
}

export const PILL_H = 11;
