// The compile task: `isamap compile FILE --target T --emit=obj` with the `$isamap` problem
// matcher, and a task provider for `"type": "isamap"` tasks in tasks.json.
import * as path from 'path';
import * as vscode from 'vscode';
import { compileArgs, resolveTuningDb, tuneArgs, type EmitKind } from '../settings';
import { currentSettings, resolveServer } from './client';

export const TASK_TYPE = 'isamap';

interface IsamapTaskDefinition extends vscode.TaskDefinition {
  file: string;
  target?: string;
  emit?: EmitKind;
}

export function compileTask(context: vscode.ExtensionContext, def: IsamapTaskDefinition, scope?: vscode.WorkspaceFolder): vscode.Task {
  const settings = currentSettings();
  const target = def.target || settings.target;
  const emit = def.emit ?? 'obj';
  const command = resolveServer(context).command;
  const exec = new vscode.ProcessExecution(command, compileArgs(def.file, target, settings.includeDirs, emit), {
    cwd: path.dirname(def.file),
  });
  const task = new vscode.Task(
    def,
    scope ?? vscode.TaskScope.Workspace,
    `compile ${path.basename(def.file)} --target ${target} --emit=${emit}`,
    'isamap',
    exec,
    ['$isamap'],
  );
  task.group = vscode.TaskGroup.Build;
  task.presentationOptions = { reveal: vscode.TaskRevealKind.Always, clear: true };
  return task;
}

export function registerTasks(context: vscode.ExtensionContext): vscode.Disposable {
  return vscode.tasks.registerTaskProvider(TASK_TYPE, {
    provideTasks: () => {
      const doc = vscode.window.activeTextEditor?.document;
      if (!doc || doc.languageId !== 'isam' || doc.uri.scheme !== 'file') return [];
      return [compileTask(context, { type: TASK_TYPE, file: doc.uri.fsPath }, vscode.workspace.getWorkspaceFolder(doc.uri))];
    },
    resolveTask: (task) => {
      const def = task.definition as IsamapTaskDefinition;
      if (typeof def.file !== 'string' || !def.file) return undefined;
      const folder = typeof task.scope === 'object' ? (task.scope as vscode.WorkspaceFolder) : undefined;
      const file = path.isAbsolute(def.file) || !folder ? def.file : path.join(folder.uri.fsPath, def.file);
      return compileTask(context, { ...def, file }, folder);
    },
  });
}

export async function compileFile(context: vscode.ExtensionContext, uri?: vscode.Uri): Promise<void> {
  const doc = uri ? await vscode.workspace.openTextDocument(uri) : vscode.window.activeTextEditor?.document;
  if (!doc || doc.languageId !== 'isam') {
    void vscode.window.showWarningMessage('isamap: open an .isam file to compile.');
    return;
  }
  if (doc.uri.scheme !== 'file') {
    void vscode.window.showWarningMessage('isamap: save the file first: the compiler reads it from disk.');
    return;
  }
  if (doc.isDirty) await doc.save();
  await vscode.tasks.executeTask(compileTask(context, { type: TASK_TYPE, file: doc.uri.fsPath }, vscode.workspace.getWorkspaceFolder(doc.uri)));
}

/**
 * `isamap tune` for one instance, in a terminal (its progress line updates in place); resolves
 * with the process's exit code when it ends (undefined if it could not start).
 */
export async function runTune(context: vscode.ExtensionContext, file: string, instance: string, target: string): Promise<number | undefined> {
  const settings = currentSettings();
  const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(file));
  const db = resolveTuningDb(settings.tuningDb, { workspaceFolder: (folder ?? vscode.workspace.workspaceFolders?.[0])?.uri.fsPath });
  if (!db) {
    void vscode.window.showWarningMessage('isamap: open a folder, or set isamap.tuningDb to an absolute path, to keep tuning results.');
    return undefined;
  }
  const exec = new vscode.ProcessExecution(resolveServer(context).command, tuneArgs(file, instance, target, db, settings.includeDirs), {
    cwd: path.dirname(file),
  });
  const task = new vscode.Task({ type: TASK_TYPE, file, target }, folder ?? vscode.TaskScope.Workspace, `tune ${instance} --target ${target}`, 'isamap', exec, ['$isamap']);
  task.presentationOptions = { reveal: vscode.TaskRevealKind.Always, clear: true };
  const execution = await vscode.tasks.executeTask(task);
  return new Promise((resolve) => {
    const done = vscode.tasks.onDidEndTaskProcess((e) => {
      if (e.execution !== execution) return;
      done.dispose();
      resolve(e.exitCode);
    });
  });
}
