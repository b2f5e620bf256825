// The language client: starts `isamap lsp` over stdio and restarts it on demand, and sends
// isamap's custom requests, each with a work-done token whose progress shows in the status bar.
import * as fs from 'fs';
import * as vscode from 'vscode';
import { LanguageClient, LanguageClientOptions, ServerOptions, TransportKind, WorkDoneProgress } from 'vscode-languageclient/node';
import { SERVER_ARGS, initializationOptions, readSettings, resolveServerPath, type IsamapSettings, type ResolvedServer } from '../settings';
import { ProgressView, newWorkDoneToken, withWorkDoneToken, type ProgressOptions, type ProgressSink } from '../progress';
import { retryOnContentModified } from '../util';

export function currentSettings(): IsamapSettings {
  const c = vscode.workspace.getConfiguration('isamap');
  return readSettings((k) => c.get(k));
}

export function resolveServer(context: vscode.ExtensionContext): ResolvedServer {
  return resolveServerPath(currentSettings().serverPath, {
    extensionPath: context.extensionPath,
    workspaceFolder: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
    exists: (f) => {
      try {
        fs.accessSync(f, fs.constants.X_OK);
        return true;
      } catch {
        return false;
      }
    },
  });
}

export class IsamapClient implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private starting: Promise<LanguageClient | undefined> | undefined;
  /** Set when the server failed to start; cleared by restart(), so errors are not repeated. */
  private failed = false;
  private readonly output: vscode.OutputChannel;
  private readonly restarted = new vscode.EventEmitter<void>();
  readonly onDidRestart = this.restarted.event;

  constructor(private readonly context: vscode.ExtensionContext) {
    this.output = vscode.window.createOutputChannel('isamap');
  }

  /** The running client, starting it if needed; undefined if the server could not start. */
  async get(): Promise<LanguageClient | undefined> {
    if (this.client?.isRunning()) return this.client;
    if (this.failed) return undefined;
    if (!this.starting) this.starting = this.start();
    return this.starting;
  }

  private async start(): Promise<LanguageClient | undefined> {
    const server = resolveServer(this.context);
    const settings = currentSettings();
    const run = { command: server.command, args: [...SERVER_ARGS], transport: TransportKind.stdio };
    const serverOptions: ServerOptions = { run, debug: run };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [
        { scheme: 'file', language: 'isam' },
        { scheme: 'untitled', language: 'isam' },
      ],
      initializationOptions: initializationOptions(settings),
      synchronize: {
        configurationSection: 'isamap',
        fileEvents: vscode.workspace.createFileSystemWatcher('**/*.isam'),
      },
      outputChannel: this.output,
    };
    this.output.appendLine(`isamap: starting ${server.command} ${SERVER_ARGS.join(' ')} (from ${server.source})`);
    const client = new LanguageClient('isamap', 'isamap language server', serverOptions, clientOptions);
    this.client = client;
    try {
      await client.start();
      return client;
    } catch (e) {
      this.failed = true;
      // A client whose start failed cannot be stopped: forget it (restart makes a new one).
      if (this.client === client) this.client = undefined;
      const why = e instanceof Error ? e.message : String(e);
      const open = 'Open Settings';
      void vscode.window
        .showErrorMessage(
          `isamap: could not start the language server '${server.command}' (${server.source === 'path' ? 'isamap on PATH' : server.source === 'bundled' ? 'bundled' : 'isamap.server.path'}): ${why}`,
          open,
        )
        .then((c) => {
          if (c === open) void vscode.commands.executeCommand('workbench.action.openSettings', 'isamap.server.path');
        });
      return undefined;
    } finally {
      this.starting = undefined;
    }
  }

  async restart(): Promise<void> {
    const old = this.client;
    this.client = undefined;
    this.starting = undefined;
    this.failed = false;
    if (old) {
      try {
        await old.stop(2000);
      } catch {
        // already stopped or failed to start
      }
    }
    await this.get();
    this.restarted.fire();
  }

  /**
   * Sends one of isamap's custom requests; again if an edit made the server's answer stale.
   * With `progress`, the request carries a work-done token and the server's progress on it
   * shows in the status bar.
   */
  async request<T = unknown>(method: string, params: object, token?: vscode.CancellationToken, progress?: ProgressOptions): Promise<T> {
    const client = await this.get();
    if (!client) throw new Error('the isamap language server is not running');
    if (!progress) return retryOnContentModified(() => client.sendRequest<T>(method, params, token));
    return retryOnContentModified(() => sendWithProgress<T>(client, method, params, token, progress));
  }

  dispose(): void {
    this.client?.stop().catch(() => undefined);
    this.restarted.dispose();
    this.output.dispose();
  }
}

/** One send with a fresh token (a retry is another request, so it gets another token). */
async function sendWithProgress<T>(
  client: LanguageClient,
  method: string,
  params: object,
  token: vscode.CancellationToken | undefined,
  options: ProgressOptions,
): Promise<T> {
  const workDoneToken = newWorkDoneToken();
  const view = new ProgressView(statusBarProgress(), options);
  // Registered before sending, so that a quick server's `begin` is not missed.
  const listening = client.onProgress(WorkDoneProgress.type, workDoneToken, (v) => view.onValue(v));
  try {
    return await client.sendRequest<T>(method, withWorkDoneToken(params, workDoneToken), token);
  } finally {
    listening.dispose();
    view.done();
  }
}

/** A progress in the status bar (ProgressLocation.Window), open from start() to stop(). */
function statusBarProgress(): ProgressSink {
  let progress: vscode.Progress<{ message?: string; increment?: number }> | undefined;
  let finish: (() => void) | undefined;
  let stopped = false;
  return {
    start(title) {
      void vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title }, (p) => {
        progress = p;
        return new Promise<void>((resolve) => {
          finish = resolve;
          if (stopped) resolve();
        });
      });
    },
    report(message, increment) {
      progress?.report({ message, increment });
    },
    stop() {
      stopped = true;
      finish?.();
    },
  };
}
