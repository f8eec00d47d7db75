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
  const sim = runFacts?.sim;
  // The speed is said apart from the numbers: rows, rates and commands are all in modelled real time.
  if (sim) hardware.push({ label: 'Simulated engine', value: `ran ×${sim.speed} faster than modelled (rows, rates and benchmark commands are in modelled real time)${sim.seed !== null ? `, seed ${sim.seed}` : ''}${sim.gpu ? `, modelled GPU ${sim.gpu}` : ''}` });
  return hardware;
}
