// The hardware facts: GPU model and count (manifest first), host, visible devices, driver, CUDA and
// NCCL versions, as the rows recorded them.
import type { RunManifest } from '../manifest';
import type { Fact } from '../report-model';
import { manifestThenRows } from './values';
import type { Work } from './work';

export function hardwareFacts(work: readonly Work[], manifest: RunManifest | undefined): Fact[] {
  const hardware: Fact[] = [];
  const hw = (label: string, path: string, fromManifest?: string) => {
    const vals = manifestThenRows(fromManifest, work, path);
    if (vals.length) hardware.push({ label, value: vals.join(', ') });
  };
  hw('GPU model', 'hardware.gpu_model', manifest?.gpuModel);
  hw('GPU count', 'hardware.gpu_count', manifest?.gpuCount !== undefined ? String(manifest.gpuCount) : undefined);
  hw('Host', 'hardware.host');
  hw('Visible devices', 'hardware.visible_devices');
  hw('Driver', 'hardware.driver_version');
  hw('CUDA', 'hardware.cuda_version');
  hw('NCCL', 'hardware.nccl_version');
  return hardware;
}
