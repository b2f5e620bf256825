// Show Mappings (and pin), Show Schedule, Show Target Code.
import * as vscode from 'vscode';
import { PIN_NOTE, candidateName, isPinAction, locationArgs, mappingItems, mappingsTitle } from '../mappings';
import { CODE_SCHEME, SCHEDULE_SCHEME } from '../documents';
import type { IsamapClient } from './client';
import type { VirtualDocuments } from './virtualDocuments';
import { runTune } from './tasks';

interface Location {
  uri: vscode.Uri;
  position: vscode.Position;
}

/** The [uri, position] of a code lens, else the active .isam editor's cursor. */
export function locationFrom(args: readonly unknown[]): Location | undefined {
  const a = locationArgs(args);
  if (a.uri) {
    const uri = vscode.Uri.parse(a.uri);
    const editor = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === uri.toString());
    const position = a.position ? new vscode.Position(a.position.line, a.position.character) : editor?.selection.active ?? new vscode.Position(0, 0);
    return { uri, position };
  }
  const editor = vscode.window.activeTextEditor;
  if (editor && editor.document.languageId === 'isam') return { uri: editor.document.uri, position: editor.selection.active };
  const visible = vscode.window.visibleTextEditors.find((e) => e.document.languageId === 'isam');
  if (visible) return { uri: visible.document.uri, position: visible.selection.active };
  void vscode.window.showWarningMessage('isamap: open an .isam file first.');
  return undefined;
}

interface MappingPick extends vscode.QuickPickItem {
  rank?: number;
}

export async function showMappings(client: IsamapClient, args: readonly unknown[]): Promise<void> {
  const loc = locationFrom(args);
  if (!loc) return;
  const params = { textDocument: { uri: loc.uri.toString() }, position: { line: loc.position.line, character: loc.position.character } };
  let answer: unknown;
  try {
    answer = await client.request('isamap/mappings', params, undefined, { title: 'isamap: mapping…' });
  } catch (e) {
    void vscode.window.showErrorMessage(`isamap: ${e instanceof Error ? e.message : String(e)}`);
    return;
  }
  const items = mappingItems(answer);
  if (typeof items === 'string') {
    void vscode.window.showInformationMessage(`isamap: ${items}`);
    return;
  }
  const picks: MappingPick[] = items.map((i) =>
    i.separator !== undefined
      ? { label: i.separator, kind: vscode.QuickPickItemKind.Separator }
      : { label: i.label, description: i.description, detail: i.detail, rank: i.rank },
  );
  const chosen = await vscode.window.showQuickPick(picks, {
    title: mappingsTitle(answer),
    placeHolder: PIN_NOTE,
    matchOnDescription: true,
    matchOnDetail: true,
  });
  if (!chosen) return;
  if (chosen.rank === undefined) {
    void vscode.window.showInformationMessage(`isamap: ${chosen.label.replace(/^\$\([^)]*\)\s*/, '')} was rejected: ${chosen.detail ?? ''}`);
    return;
  }
  await pinSchedule(loc, candidateName({ label: chosen.label, rank: chosen.rank }));
}

/** Applies the server's "Pin this schedule" code action at the statement. */
export async function pinSchedule(loc: Location, chosenLabel: string): Promise<void> {
  const range = new vscode.Range(loc.position, loc.position);
  const actions = (await vscode.commands.executeCommand<(vscode.CodeAction | vscode.Command)[]>(
    'vscode.executeCodeActionProvider',
    loc.uri,
    range,
  )) ?? [];
  const pin = actions.find((a): a is vscode.CodeAction => 'title' in a && isPinAction(a.title) && 'edit' in a && !!(a as vscode.CodeAction).edit);
  if (!pin || !pin.edit) {
    void vscode.window.showWarningMessage('isamap: the server offers no schedule to pin for this statement.');
    return;
  }
  const ok = await vscode.workspace.applyEdit(pin.edit);
  if (ok)
    void vscode.window.showInformationMessage(
      `isamap: ${pin.title}. You picked ${chosenLabel}; the server pins the schedule its search chose, not a specific candidate.`,
    );
}

export async function showSchedule(docs: VirtualDocuments, args: readonly unknown[]): Promise<void> {
  const loc = locationFrom(args);
  if (!loc) return;
  await docs.open(SCHEDULE_SCHEME, { source: loc.uri.toString(), position: { line: loc.position.line, character: loc.position.character } });
}

export async function showTargetCode(docs: VirtualDocuments, args: readonly unknown[]): Promise<void> {
  const loc = locationFrom(args);
  if (!loc) return;
  await docs.open(CODE_SCHEME, { source: loc.uri.toString(), position: { line: loc.position.line, character: loc.position.character }, kind: 'asm' });
}

/**
 * Tune Instance: the instance that stands for the kernel under the cursor (the server's answer to
 * isamap/mappings names it), measured by `isamap tune` on the configured target; the lenses and
 * hovers show the measured time once the database has it.
 */
export async function tuneInstance(context: vscode.ExtensionContext, client: IsamapClient, args: readonly unknown[]): Promise<void> {
  const loc = locationFrom(args);
  if (!loc) return;
  const doc = await vscode.workspace.openTextDocument(loc.uri);
  if (doc.uri.scheme !== 'file') {
    void vscode.window.showWarningMessage('isamap: save the file first: the tuner reads it from disk.');
    return;
  }
  if (doc.isDirty) await doc.save();
  const params = { textDocument: { uri: loc.uri.toString() }, position: { line: loc.position.line, character: loc.position.character } };
  let answer: { instance?: unknown; target?: unknown; message?: unknown };
  try {
    answer = (await client.request('isamap/mappings', params, undefined, { title: 'isamap: finding the instance…' })) as typeof answer;
  } catch (e) {
    void vscode.window.showErrorMessage(`isamap: ${e instanceof Error ? e.message : String(e)}`);
    return;
  }
  if (typeof answer.instance !== 'string' || typeof answer.target !== 'string') {
    void vscode.window.showInformationMessage(`isamap: nothing to tune here${typeof answer.message === 'string' ? `: ${answer.message}` : ''}`);
    return;
  }
  const code = await runTune(context, doc.uri.fsPath, answer.instance, answer.target);
  if (code === 0) void vscode.window.setStatusBarMessage(`isamap: tuned ${answer.instance} on ${answer.target}`, 5000);
  else if (code !== undefined) void vscode.window.showErrorMessage(`isamap: tuning ${answer.instance} failed (exit ${code}); see the terminal.`);
}
