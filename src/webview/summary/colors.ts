// The chart colours: one theme colour per framework (the VS Code chart palette, with fallbacks for a plain browser).
import { themeColor } from './dom';

const FRAMEWORK_COLORS: Array<[string, string, string]> = [
  ['sglang', '--vscode-charts-blue', '#3794ff'],
  ['vllm', '--vscode-charts-orange', '#d18616'],
  ['tensorrt_llm', '--vscode-charts-green', '#89d185'],
  ['tokenspeed', '--vscode-charts-purple', '#b180d7'],
];
const EXTRA_COLORS: Array<[string, string]> = [
  ['--vscode-charts-red', '#f14c4c'],
  ['--vscode-charts-yellow', '#cca700'],
];

export function frameworkColor(fw: string, index: number): string {
  const known = FRAMEWORK_COLORS.find((c) => c[0] === fw);
  if (known) return themeColor(known[1], known[2]);
  const extra = EXTRA_COLORS[index % EXTRA_COLORS.length] as [string, string];
  return themeColor(extra[0], extra[1]);
}
