// The hardware facts: GPU model and count (run facts first), host, visible devices, driver, CUDA and
// NCCL versions, as the rows recorded them.
import type { RunFacts } from '../run-facts';
import type { Fact } from '../report-model';
import { manifestThenRows } from './values';
import type { Work } from './work';

export function hardwareFacts(work: readonly Work[], runFacts: RunFacts | undefined): Fact[] {
  const hardware: Fact[] = [];
  const hw = (label: string, path: string, fromManifest?: string) => {
    const vals = manifestThenRows(fromManifest, work, path);
    if (vals.length) hardware.push({ label, value: vals.join(', ') });
  };
  hw('GPU model', 'hardware.gpu_model', runFacts?.gpuModel);
  hw('GPU count', 'hardware.gpu_count', runFacts?.gpuCount !== undefined ? String(runFacts.gpuCount) : undefined);
  hw('Host', 'hardware.host');
  hw('Visible devices', 'hardware.visible_devices');
  hw('Driver', 'hardware.driver_version');
  hw('CUDA', 'hardware.cuda_version');
  hw('NCCL', 'hardware.nccl_version');
  return hardware;
}
