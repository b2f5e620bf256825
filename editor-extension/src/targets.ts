// Pure: the shipped targets (hwdesc/) and the status bar's target picker.

export interface TargetInfo {
  name: string;
  description: string;
}

/** The targets isamap ships (`--target NAME` finds hwdesc/NAME.isam by itself), and `host`. */
export const SHIPPED_TARGETS: readonly TargetInfo[] = [
  { name: 'host', description: 'this machine (the shipped description closest to the CPU)' },
  { name: 'x86_avx512', description: 'AMD Zen 4, AVX-512' },
  { name: 'x86_avx2', description: 'x86-64 with AVX2 and FMA' },
  { name: 'arm_neon', description: 'AArch64 with NEON' },
  { name: 'riscv_rvv', description: 'RISC-V with the vector extension' },
  { name: 'systolic16', description: 'a 16x16 systolic array accelerator' },
  { name: 'generic', description: 'memory only, no vector instructions' },
  { name: 'soc', description: 'a system: host CPU and systolic16 device' },
];

export interface TargetPickItem {
  label: string;
  description?: string;
  target?: string;
  picked?: boolean;
  /** The item that asks for a name not in the list. */
  other?: boolean;
}

export function targetPickItems(current: string): TargetPickItem[] {
  const items: TargetPickItem[] = SHIPPED_TARGETS.map((t) => ({
    label: t.name === current ? `$(check) ${t.name}` : t.name,
    description: t.description,
    target: t.name,
    picked: t.name === current,
  }));
  if (!SHIPPED_TARGETS.some((t) => t.name === current))
    items.unshift({ label: `$(check) ${current}`, description: 'current (from settings)', target: current, picked: true });
  items.push({ label: 'Other…', description: 'a target declared in an imported file', other: true });
  return items;
}

/** A valid target name (an identifier of the language). */
export function isTargetName(s: string): boolean {
  return /^[A-Za-z_][A-Za-z_0-9]*$/.test(s);
}

export function statusBarText(target: string): string {
  return `$(chip) ${target}`;
}

/** Where the picked target is written: the workspace if one is open, else the user settings. */
export function settingsScope(hasWorkspace: boolean): 'workspace' | 'global' {
  return hasWorkspace ? 'workspace' : 'global';
}
