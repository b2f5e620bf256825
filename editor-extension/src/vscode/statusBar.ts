// The status bar item showing the active target; clicking it picks another.
import * as vscode from 'vscode';
import { isTargetName, settingsScope, statusBarText, targetPickItems } from '../targets';
import { CODE_SCHEME, SCHEDULE_SCHEME } from '../documents';
import { currentSettings } from './client';

export class TargetStatus implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly disposables: vscode.Disposable[] = [];

  constructor() {
    this.item = vscode.window.createStatusBarItem('isamap.target', vscode.StatusBarAlignment.Right, 100);
    this.item.name = 'isamap target';
    this.item.command = 'isamap.selectTarget';
    this.disposables.push(
      this.item,
      vscode.window.onDidChangeActiveTextEditor(() => this.update()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('isamap.target')) this.update();
      }),
    );
    this.update();
  }

  update(): void {
    const target = currentSettings().target;
    this.item.text = statusBarText(target);
    this.item.tooltip = `isamap target: ${target} (click to change)`;
    const doc = vscode.window.activeTextEditor?.document;
    const relevant = !!doc && (doc.languageId === 'isam' || doc.uri.scheme === CODE_SCHEME || doc.uri.scheme === SCHEDULE_SCHEME);
    if (relevant) this.item.show();
    else this.item.hide();
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

export async function selectTarget(): Promise<void> {
  const current = currentSettings().target;
  const picked = await vscode.window.showQuickPick(targetPickItems(current), {
    title: 'isamap: target',
    placeHolder: `The target mappings, diagrams and target code use (now ${current})`,
  });
  if (!picked) return;
  let target = picked.target;
  if (picked.other) {
    target = await vscode.window.showInputBox({
      title: 'isamap: target name',
      prompt: 'A target declared in an imported file (or hwdesc/NAME.isam)',
      value: current,
      validateInput: (s) => (isTargetName(s.trim()) ? undefined : 'a target name is an identifier'),
    });
    target = target?.trim();
  }
  if (!target) return;
  const scope = settingsScope(!!vscode.workspace.workspaceFolders?.length);
  await vscode.workspace
    .getConfiguration('isamap')
    .update('target', target, scope === 'workspace' ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global);
}
