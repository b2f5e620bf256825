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
