// The status bar item showing the active target; clicking it picks another from the targets
// the server lists for the active document (isamap/targets), or the shipped ones without it.
import * as vscode from 'vscode';
import {
  TARGETS_METHOD,
  fallbackNote,
  isTargetName,
  parseTargets,
  settingsScope,
  shippedTargets,
  statusBarText,
  targetPickItems,
  targetPickerPlaceholder,
  targetsParams,
  type ListedTarget,
  type TargetPickItem,
} from '../targets';
import { CODE_SCHEME, SCHEDULE_SCHEME, decodeRef } from '../documents';
import { currentSettings, type IsamapClient } from './client';

/** How long the picker waits for the server's list before offering the shipped one. */
const TARGETS_TIMEOUT_MS = 3000;

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

/** The .isam document the picker is for: the active one, or the source of a schedule or code view. */
function activeIsamUri(): string | undefined {
  const doc = vscode.window.activeTextEditor?.document;
  if (doc?.languageId === 'isam') return doc.uri.toString();
  if (doc && (doc.uri.scheme === CODE_SCHEME || doc.uri.scheme === SCHEDULE_SCHEME)) return decodeRef(doc.uri.query)?.source;
  return vscode.window.visibleTextEditors.find((e) => e.document.languageId === 'isam')?.document.uri.toString();
}

interface Listing {
  targets: ListedTarget[];
  /** Set when the list is the shipped one, saying why. */
  note?: string;
}

/** The server's list for the document, or the shipped one (with why) if it cannot answer in time. */
async function listTargets(client: IsamapClient, token: vscode.CancellationToken): Promise<Listing> {
  const cts = new vscode.CancellationTokenSource();
  const cancelled = token.onCancellationRequested(() => cts.cancel());
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer in ${TARGETS_TIMEOUT_MS / 1000} s`)), TARGETS_TIMEOUT_MS);
  });
  try {
    const answer = await Promise.race([client.request(TARGETS_METHOD, targetsParams(activeIsamUri()), cts.token), timeout]);
    const targets = parseTargets(answer);
    return targets ? { targets } : { targets: shippedTargets(), note: fallbackNote(new Error('it answered without a list')) };
  } catch (e) {
    return { targets: shippedTargets(), note: fallbackNote(e) };
  } finally {
    clearTimeout(timer);
    cts.cancel();
    cts.dispose();
    cancelled.dispose();
  }
}

type TargetPick = vscode.QuickPickItem & { target?: string; other?: boolean };

function toPick(i: TargetPickItem): TargetPick {
  if (i.separator !== undefined) return { label: i.separator, kind: vscode.QuickPickItemKind.Separator };
  return { label: i.label, description: i.description, detail: i.detail, target: i.target, other: i.other };
}

/** Shows the picker at once (busy while the server lists the targets); the target picked. */
async function pickTarget(client: IsamapClient, current: string): Promise<TargetPick | undefined> {
  const qp = vscode.window.createQuickPick<TargetPick>();
  qp.title = 'isamap: target';
  qp.placeholder = targetPickerPlaceholder(current);
  qp.matchOnDescription = true;
  qp.matchOnDetail = true;
  qp.busy = true;
  const hidden = new vscode.CancellationTokenSource();
  const chosen = new Promise<TargetPick | undefined>((resolve) => {
    qp.onDidAccept(() => {
      // Enter on a filter that matches nothing takes the typed name, as "Other…" would.
      const typed = qp.value.trim();
      resolve(qp.selectedItems[0] ?? (isTargetName(typed) ? { label: typed, target: typed } : undefined));
      qp.hide();
    });
    qp.onDidHide(() => {
      hidden.cancel();
      resolve(undefined);
    });
  });
  qp.show();
  const listing = await listTargets(client, hidden.token);
  if (!hidden.token.isCancellationRequested) {
    const items = targetPickItems(current, listing.targets);
    const picks = items.map(toPick);
    qp.items = picks;
    const at = items.findIndex((i) => i.picked);
    if (at >= 0) qp.activeItems = [picks[at]];
    qp.placeholder = targetPickerPlaceholder(current, listing.note);
    qp.busy = false;
  }
  const picked = await chosen;
  qp.dispose();
  hidden.dispose();
  return picked;
}

export async function selectTarget(client: IsamapClient): Promise<void> {
  const current = currentSettings().target;
  const picked = await pickTarget(client, current);
  if (!picked) return;
  let target = picked.target;
  if (picked.other) {
    target = await vscode.window.showInputBox({
      title: 'isamap: target name',
      prompt: 'A target declared in an imported file, or NAME for NAME.isam in an include directory, the workspace or hwdesc/',
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
