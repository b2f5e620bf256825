// The language client: starts `isamap lsp` over stdio and restarts it on demand.
import * as fs from 'fs';
import * as vscode from 'vscode';
import { LanguageClient, LanguageClientOptions, ServerOptions, TransportKind } from 'vscode-languageclient/node';
import { SERVER_ARGS, initializationOptions, readSettings, resolveServerPath, type IsamapSettings, type ResolvedServer } from '../settings';
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

  /** Sends one of isamap's custom requests; again if an edit made the server's answer stale. */
  async request<T = unknown>(method: string, params: unknown, token?: vscode.CancellationToken): Promise<T> {
    const client = await this.get();
    if (!client) throw new Error('the isamap language server is not running');
    return retryOnContentModified(() => client.sendRequest<T>(method, params, token));
  }

  dispose(): void {
    this.client?.stop().catch(() => undefined);
    this.restarted.dispose();
    this.output.dispose();
  }
}
