// The diagram panel: the server's isamap/diagram SVG for the statement under the cursor,
// refreshed (debounced) on edits and cursor moves.
import * as crypto from 'crypto';
import * as vscode from 'vscode';
import { DEFAULT_VIEW, Sequencer, diagramMessage, diagramParams, parseFromWebview, type ToWebview, type View } from '../protocol';
import { PANEL_TITLE, makeNonce, panelHtml } from '../panelHtml';
import { Debouncer, defaultViewFor, refreshDelay } from '../util';
import { IsamapClient, currentSettings } from './client';

export const DIAGRAM_VIEW_TYPE = 'isamap.diagram';

interface Focus {
  uri: vscode.Uri;
  position: vscode.Position;
}

export class DiagramPanel implements vscode.Disposable {
  private static current: DiagramPanel | undefined;

  private readonly disposables: vscode.Disposable[] = [];
  private readonly seq = new Sequencer();
  private readonly debouncer = new Debouncer(() => void this.refresh());
  private view: View;
  private mapping = 0;
  private focus: Focus | undefined;
  private ready = false;
  private inflight: vscode.CancellationTokenSource | undefined;

  static show(context: vscode.ExtensionContext, client: IsamapClient, editor: vscode.TextEditor | undefined): void {
    if (DiagramPanel.current) {
      if (editor) DiagramPanel.current.follow(editor, 0);
      DiagramPanel.current.panel.reveal(undefined, true);
      return;
    }
    const panel = vscode.window.createWebviewPanel(
      DIAGRAM_VIEW_TYPE,
      PANEL_TITLE,
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      {
        enableScripts: true,
        retainContextWhenHidden: true,
        localResourceRoots: [vscode.Uri.joinPath(context.extensionUri, 'dist')],
      },
    );
    DiagramPanel.current = new DiagramPanel(context, client, panel, editor);
  }

  /** Refreshes the open panel (after a target change or a server restart). */
  static refreshIfOpen(): void {
    DiagramPanel.current?.debouncer.schedule(0);
  }

  private constructor(
    context: vscode.ExtensionContext,
    private readonly client: IsamapClient,
    private readonly panel: vscode.WebviewPanel,
    editor: vscode.TextEditor | undefined,
  ) {
    this.view = editor ? defaultViewFor(editor.document.getText()) : DEFAULT_VIEW;
    if (editor) this.focus = { uri: editor.document.uri, position: editor.selection.active };
    const webview = panel.webview;
    webview.html = panelHtml({
      cspSource: webview.cspSource,
      nonce: makeNonce((n) => crypto.randomBytes(n)),
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(context.extensionUri, 'dist', 'webview.js')).toString(),
      styleUri: webview.asWebviewUri(vscode.Uri.joinPath(context.extensionUri, 'dist', 'diagram.css')).toString(),
    });
    this.disposables.push(
      panel.onDidDispose(() => this.dispose()),
      webview.onDidReceiveMessage((raw) => this.onMessage(raw)),
      vscode.window.onDidChangeTextEditorSelection((e) => {
        if (e.textEditor.document.languageId === 'isam') this.follow(e.textEditor, refreshDelay(0));
      }),
      vscode.window.onDidChangeActiveTextEditor((e) => {
        if (e && e.document.languageId === 'isam') this.follow(e, 0);
      }),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.contentChanges.length && e.document.languageId === 'isam')
          this.debouncer.schedule(refreshDelay(currentSettings().debounceMs));
      }),
    );
  }

  private follow(editor: vscode.TextEditor, delay: number): void {
    const next = { uri: editor.document.uri, position: editor.selection.active };
    const same = this.focus && this.focus.uri.toString() === next.uri.toString() && this.focus.position.isEqual(next.position);
    this.focus = next;
    if (!same) this.debouncer.schedule(delay);
  }

  private post(m: ToWebview): void {
    void this.panel.webview.postMessage(m);
  }

  private onMessage(raw: unknown): void {
    const m = parseFromWebview(raw);
    if (!m) return;
    switch (m.type) {
      case 'ready':
        this.ready = true;
        this.post({ type: 'state', view: this.view, mapping: this.mapping });
        void this.refresh();
        break;
      case 'setView':
        this.view = m.view;
        void this.refresh();
        break;
      case 'setMapping':
        this.mapping = m.mapping;
        void this.refresh();
        break;
      case 'refresh':
        void this.refresh();
        break;
    }
  }

  async refresh(): Promise<void> {
    if (!this.ready) return;
    const seq = this.seq.next();
    const view = this.view;
    if (!this.focus) {
      this.post({ type: 'message', seq, view, text: 'Open an .isam file and put the cursor on a statement.' });
      return;
    }
    this.inflight?.cancel();
    const cts = new vscode.CancellationTokenSource();
    this.inflight = cts;
    this.post({ type: 'loading', seq, view });
    const params = diagramParams(this.focus.uri.toString(), { line: this.focus.position.line, character: this.focus.position.character }, view, this.mapping);
    let message: ToWebview;
    try {
      // The server's progress ("Scheduling gemm") shows in the panel at once, and in the
      // status bar once it lasts.
      const answer = await this.client.request('isamap/diagram', params, cts.token, {
        observe: (text) => this.post({ type: 'loading', seq, view, text }),
      });
      message = diagramMessage(seq, view, answer);
    } catch (e) {
      if (cts.token.isCancellationRequested) return;
      message = diagramMessage(seq, view, undefined, e);
    }
    if (this.seq.accept(seq)) this.post(message);
  }

  dispose(): void {
    if (DiagramPanel.current === this) DiagramPanel.current = undefined;
    this.debouncer.cancel();
    this.inflight?.cancel();
    for (const d of this.disposables) d.dispose();
    this.panel.dispose();
  }
}
