// Pure: work-done progress of the extension's own requests. Each slow request carries a fresh
// `workDoneToken` (LSP's client-initiated progress: the server reports `$/progress` begin,
// report and end on it, with no window/workDoneProgress/create); a ProgressView turns those
// values into calls on a sink (in the extension, vscode.window.withProgress). No `vscode`.

/** What shows the progress of one request. */
export interface ProgressSink {
  start(title: string): void;
  /** `increment`: percent points since the last report, as vscode's Progress.report takes it. */
  report(message: string | undefined, increment: number | undefined): void;
  stop(): void;
}

export interface ProgressOptions {
  /**
   * Shown at once, for work the user waits on (a picker about to open); the server's own title
   * then becomes the message. Without it, nothing shows until the server begins.
   */
  title?: string;
  /**
   * How long the server's work must last before it is shown (no status bar flicker for the
   * quick answers of a panel following the cursor). Ignored with `title`.
   */
  delayMs?: number;
  /** Told the server's title and messages as they come (the diagram panel shows them). */
  observe?: (text: string) => void;
}

export interface Timers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const realTimers: Timers = {
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

/** Work shorter than this is not shown in the status bar. */
export const DEFAULT_PROGRESS_DELAY_MS = 300;
/** Prefixed to what the status bar shows, so that the user knows whose work it is. */
export const PROGRESS_PREFIX = 'isamap: ';

let issued = 0;
const session = Math.floor(Math.random() * 0x7fffffff).toString(36);

/** A token no other request of this extension host uses (tokens need only be unique per client). */
export function newWorkDoneToken(): string {
  return `isamap/${session}/${++issued}`;
}

/** The parameters with the token added (the custom requests' parameters are objects). */
export function withWorkDoneToken<P extends object>(params: P, token: string): P & { workDoneToken: string } {
  return { ...params, workDoneToken: token };
}

interface ProgressValue {
  kind: 'begin' | 'report' | 'end';
  title?: string;
  message?: string;
  percentage?: number;
}

/** A `$/progress` value of the WorkDoneProgress kinds, or undefined (the server is untrusted). */
export function parseProgressValue(v: unknown): ProgressValue | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const o = v as Record<string, unknown>;
  if (o.kind !== 'begin' && o.kind !== 'report' && o.kind !== 'end') return undefined;
  const out: ProgressValue = { kind: o.kind };
  if (typeof o.title === 'string') out.title = o.title;
  if (typeof o.message === 'string') out.message = o.message;
  if (typeof o.percentage === 'number' && Number.isFinite(o.percentage)) out.percentage = Math.max(0, Math.min(100, o.percentage));
  return out;
}

/**
 * The progress of one request: fed the server's values (`onValue`) and told when the request
 * settled (`done`: answered, failed or cancelled, whether or not the server sent `end`). Starts
 * the sink at most once and stops it exactly once if started.
 */
export class ProgressView {
  private started = false;
  private finished = false;
  private began = false;
  private timer: unknown;
  private title: string | undefined;
  private message: string | undefined;
  /** Percent reported to the sink so far (vscode's progress counts increments). */
  private shownPercent = 0;
  private percent: number | undefined;

  constructor(
    private readonly sink: ProgressSink,
    private readonly options: ProgressOptions = {},
    private readonly timers: Timers = realTimers,
  ) {
    if (options.title !== undefined) this.start(options.title);
  }

  onValue(raw: unknown): void {
    const v = parseProgressValue(raw);
    if (!v || this.finished) return;
    if (v.kind === 'end') {
      this.done();
      return;
    }
    if (v.kind === 'begin') {
      if (this.began) return;
      this.began = true;
      this.title = v.title;
      if (v.title) this.options.observe?.(v.title);
    }
    if (v.message !== undefined) {
      this.message = v.message;
      if (v.kind === 'report') this.options.observe?.(this.title ? `${this.title}: ${v.message}` : v.message);
    }
    if (v.percentage !== undefined) this.percent = v.percentage;
    if (!this.began) return; // a report before begin: nothing to show it under
    if (this.started) this.flush();
    else if (this.timer === undefined) this.timer = this.timers.set(() => this.showServerWork(), this.options.delayMs ?? DEFAULT_PROGRESS_DELAY_MS);
  }

  done(): void {
    if (this.finished) return;
    this.finished = true;
    if (this.timer !== undefined) this.timers.clear(this.timer);
    this.timer = undefined;
    if (this.started) this.sink.stop();
  }

  private showServerWork(): void {
    this.timer = undefined;
    if (this.finished || this.started) return;
    this.start(`${PROGRESS_PREFIX}${this.title ?? 'working'}`);
    this.flush();
  }

  private start(title: string): void {
    this.started = true;
    this.sink.start(title);
  }

  /** What the sink has not shown yet: with an immediate title, the server's title is a message. */
  private flush(): void {
    const immediate = this.options.title !== undefined;
    const text = immediate && this.title ? [this.title, this.message].filter(Boolean).join(': ') : this.message;
    let increment: number | undefined;
    if (this.percent !== undefined && this.percent > this.shownPercent) {
      increment = this.percent - this.shownPercent;
      this.shownPercent = this.percent;
    }
    if (text !== undefined || increment !== undefined) this.sink.report(text, increment);
  }
}
