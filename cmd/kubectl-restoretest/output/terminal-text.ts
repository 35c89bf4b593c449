// What reaches the user's terminal (issue 26). Much of what the plugin prints was written by others:
// a restored application's log lines and event messages (`diagnose`), check messages, problem
// details, names. A terminal obeys the control sequences in that text — move the cursor, rewrite
// earlier lines, set the window title, on some terminals worse — so a restored app could make
// `kubectl restoretest diagnose` show an operator something else than what was there.
//
// Every byte the plugin writes passes through terminalSafe (cli.ts wraps the output streams): C0
// controls but newline and tab, DEL, C1 controls and the Unicode bidirectional overrides (which
// reorder what is displayed) become visible escapes ("\u001b"), which are also valid JSON and YAML
// escapes. Kept as they are: the colour sequences the plugin itself emits (result words) and the
// progress line's "return, clear line" at the start of a write.

// The plugin's own sequences: SGR reset/red/green/yellow, and the progress line's leading "\r ESC[2K".
// eslint-disable-next-line no-control-regex
const OWN_COLOUR = /^\u001b\[(?:0|31|32|33)m/;
const PROGRESS_PREFIX = '\r\u001b[2K';
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

function escaped(character: string): string {
  return `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** `text` with every control sequence it did not get from the plugin itself made visible. */
export function terminalSafe(text: string): string {
  if (!UNSAFE.test(text)) return text;
  let out = '';
  let index = 0;
  if (text.startsWith(PROGRESS_PREFIX)) {
    out = PROGRESS_PREFIX;
    index = PROGRESS_PREFIX.length;
  }
  while (index < text.length) {
    const character = text[index]!;
    if (character === '\u001b') {
      const own = OWN_COLOUR.exec(text.slice(index, index + 6));
      if (own) {
        out += own[0];
        index += own[0].length;
        continue;
      }
    }
    out += UNSAFE.test(character) ? escaped(character) : character;
    index += 1;
  }
  return out;
}
