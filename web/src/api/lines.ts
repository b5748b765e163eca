/** Reads a newline-delimited JSON answer as it arrives; empty (keep-alive) lines are skipped. */
export async function forEachJsonLine<T>(res: Response, onLine: (value: T) => void): Promise<void> {
  if (!res.body) return;
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (value) buffer += value;
    const lines = done ? [buffer] : buffer.split('\n');
    buffer = done ? '' : (lines.pop() ?? '');
    for (const line of lines) {
      if (line.trim()) onLine(JSON.parse(line) as T);
    }
    if (done) return;
  }
}
