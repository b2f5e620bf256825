// Read-only virtual documents: `isamap-schedule:` (the schedule IR text) and `isamap-code:`
// (the target code, refreshed on edits of the source, like a compiler explorer).
import * as vscode from 'vscode';
import { CODE_SCHEME, SCHEDULE_SCHEME, decodeRef, encodeRef, requestParams, scheduleText, targetCodeText, virtualPath, type VirtualRef } from '../documents';
import { Debouncer, refreshDelay } from '../util';
import { IsamapClient, currentSettings } from './client';

export class VirtualDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly disposables: vscode.Disposable[] = [];
  /** The latest cursor in each source document, so a refresh follows the kernel being edited. */
  private readonly cursors = new Map<string, vscode.Position>();
  private readonly pending = new Map<string, Debouncer>();

  constructor(private readonly client: IsamapClient) {
    this.disposables.push(
      vscode.workspace.registerTextDocumentContentProvider(SCHEDULE_SCHEME, this),
      vscode.workspace.registerTextDocumentContentProvider(CODE_SCHEME, this),
      vscode.window.onDidChangeTextEditorSelection((e) => {
        if (e.textEditor.document.languageId === 'isam') this.cursors.set(e.textEditor.document.uri.toString(), e.selections[0].active);
      }),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.contentChanges.length && e.document.languageId === 'isam') this.sourceChanged(e.document.uri.toString());
      }),
      this.changed,
    );
  }

  static uri(scheme: string, ref: VirtualRef): vscode.Uri {
    return vscode.Uri.from({ scheme, path: virtualPath(scheme, ref), query: encodeRef(ref) });
  }

  /** Opens (or re-shows) a virtual document beside the source. */
  async open(scheme: string, ref: VirtualRef): Promise<void> {
    // One document per source (and kind): the position is the live cursor, not part of the URI.
    const uri = VirtualDocuments.uri(scheme, ref.kind ? { source: ref.source, kind: ref.kind } : { source: ref.source });
    this.cursors.set(ref.source, new vscode.Position(ref.position?.line ?? 0, ref.position?.character ?? 0));
    const already = vscode.workspace.textDocuments.some((d) => d.uri.toString() === uri.toString());
    const doc = await vscode.workspace.openTextDocument(uri);
    if (already) this.changed.fire(uri);
    await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, preview: false, preserveFocus: true });
  }

  private openVirtual(): vscode.Uri[] {
    return vscode.workspace.textDocuments
      .map((d) => d.uri)
      .filter((u) => u.scheme === SCHEDULE_SCHEME || u.scheme === CODE_SCHEME);
  }

  private sourceChanged(source: string): void {
    let d = this.pending.get(source);
    if (!d) {
      d = new Debouncer(() => {
        for (const u of this.openVirtual()) if (decodeRef(u.query)?.source === source) this.changed.fire(u);
      });
      this.pending.set(source, d);
    }
    d.schedule(refreshDelay(currentSettings().debounceMs));
  }

  /** Refreshes every open virtual document (after a target change or a server restart). */
  refreshAll(): void {
    for (const u of this.openVirtual()) this.changed.fire(u);
  }

  async provideTextDocumentContent(uri: vscode.Uri, token: vscode.CancellationToken): Promise<string> {
    const ref = decodeRef(uri.query);
    if (!ref) return '// isamap: this document does not name a source\n';
    const cursor = this.cursors.get(ref.source);
    const live: VirtualRef = cursor ? { ...ref, position: { line: cursor.line, character: cursor.character } } : ref;
    const code = uri.scheme === CODE_SCHEME;
    const kind = ref.kind ?? 'asm';
    try {
      // Progress in the status bar once the work lasts (scheduling, compiling).
      const answer = await this.client.request(code ? 'isamap/targetCode' : 'isamap/schedule', requestParams(code ? { ...live, kind } : live), token, {});
      return code ? targetCodeText(answer, kind) : scheduleText(answer);
    } catch (e) {
      return code ? targetCodeText(undefined, kind, e) : scheduleText(undefined, e);
    }
  }

  dispose(): void {
    for (const d of this.pending.values()) d.cancel();
    for (const d of this.disposables) d.dispose();
  }
}
