// Pure helpers.

/** A debounced call: `schedule(ms)` runs `fn` once, `ms` after the last call. */
export class Debouncer {
  private timer: ReturnType<typeof setTimeout> | undefined;
  constructor(private readonly fn: () => void) {}
  schedule(ms: number): void {
    this.cancel();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.fn();
    }, ms);
  }
  cancel(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/** The view a new diagram panel starts with: hardware for a file with targets and no kernel. */
export function defaultViewFor(text: string): 'schedule' | 'hardware' {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/[^\n]*/g, '');
  const kernel = /\bkernel\s+[A-Za-z_]/.test(code);
  const target = /\b(target|system)\s+[A-Za-z_]/.test(code);
  return !kernel && target ? 'hardware' : 'schedule';
}

/** The delay after an edit before asking the server again: its own debounce, and a margin. */
export function refreshDelay(debounceMs: number): number {
  return debounceMs + 100;
}

/** The JSON-RPC code of a request answered for text the client no longer has. */
export const CONTENT_MODIFIED = -32801;

/**
 * Sends a request again when the server answers it ContentModified (the document changed while
 * it ran: the question still stands, for the new text), at most `attempts` times in all. Other
 * answers and errors pass through.
 */
export async function retryOnContentModified<T>(send: () => Promise<T>, attempts = 3): Promise<T> {
  for (let i = 1; ; ++i) {
    try {
      return await send();
    } catch (e) {
      const code = (e as { code?: unknown } | null)?.code;
      if (code !== CONTENT_MODIFIED || i >= attempts) throw e;
    }
  }
}
