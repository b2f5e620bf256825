// The isamap extension: the `isam` language (grammar, configuration and snippets are static in
// package.json), the language client for `isamap lsp`, the diagram panel, the mappings picker,
// the schedule and target code documents, the compile task and the target status bar item.
import * as vscode from 'vscode';
import { IsamapClient } from './vscode/client';
import { DiagramPanel } from './vscode/diagramPanel';
import { VirtualDocuments } from './vscode/virtualDocuments';
import { TargetStatus, selectTarget } from './vscode/statusBar';
import { compileFile, registerTasks } from './vscode/tasks';
import { showMappings, showSchedule, showTargetCode, tuneInstance } from './vscode/commands';

let client: IsamapClient | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  client = new IsamapClient(context);
  const c = client;
  const docs = new VirtualDocuments(c);
  const status = new TargetStatus();
  const isamEditor = () => {
    const e = vscode.window.activeTextEditor;
    return e && e.document.languageId === 'isam' ? e : vscode.window.visibleTextEditors.find((v) => v.document.languageId === 'isam');
  };
  context.subscriptions.push(
    c,
    docs,
    status,
    registerTasks(context),
    vscode.commands.registerCommand('isamap.showDiagram', () => DiagramPanel.show(context, c, isamEditor())),
    vscode.commands.registerCommand('isamap.showMappings', (...args: unknown[]) => showMappings(c, args)),
    vscode.commands.registerCommand('isamap.showSchedule', (...args: unknown[]) => showSchedule(docs, args)),
    vscode.commands.registerCommand('isamap.showTargetCode', (...args: unknown[]) => showTargetCode(docs, args)),
    vscode.commands.registerCommand('isamap.compileFile', (uri?: unknown) => compileFile(context, uri instanceof vscode.Uri ? uri : undefined)),
    vscode.commands.registerCommand('isamap.selectTarget', () => selectTarget(c)),
    vscode.commands.registerCommand('isamap.tuneInstance', async (...args: unknown[]) => {
      await tuneInstance(context, c, args);
      DiagramPanel.refreshIfOpen();
      docs.refreshAll();
    }),
    vscode.commands.registerCommand('isamap.restartServer', async () => {
      await c.restart();
      void vscode.window.setStatusBarMessage('isamap: language server restarted', 3000);
    }),
    c.onDidRestart(() => {
      DiagramPanel.refreshIfOpen();
      docs.refreshAll();
    }),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration('isamap.server.path')) {
        await c.restart();
        return;
      }
      if (e.affectsConfiguration('isamap')) {
        // The client forwards the section to the server (didChangeConfiguration); then refresh
        // what shows results for the old settings.
        setTimeout(() => {
          DiagramPanel.refreshIfOpen();
          docs.refreshAll();
        }, 50);
      }
    }),
  );
  void c.get();
}

export async function deactivate(): Promise<void> {
  client?.dispose();
  client = undefined;
}
