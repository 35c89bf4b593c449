// A strict RFC 4180 reader for the tests of the dashboard's CSV export (unit: web/src/report-csv.ts;
// integration: the downloaded file). Written apart from the writer, so the two do not share a
// mistake: a bare quote, CR or LF outside quotes, or a last record without CRLF is an error.

/** RFC 4180: records end with CRLF; a quoted field may hold commas, CR, LF and "" for a quote. */
export function readCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  const endField = (): void => {
    record.push(field);
    field = '';
  };
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i += 1;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === ',') endField();
    else if (c === '\r' && text[i + 1] === '\n') {
      endField();
      records.push(record);
      record = [];
      i += 1;
    } else if (c === '\n' || c === '\r' || c === '"') throw new Error(`bare ${JSON.stringify(c)} at ${i}`);
    else field += c;
  }
  if (field !== '' || record.length > 0) throw new Error('last record without CRLF');
  return records;
}

