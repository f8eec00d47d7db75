// The verdict's objective against the plan's prices: per_dollar needs cost.gpu_hour_usd, and a price for the GPU the
// plan names when prices are given per GPU model (plan/bench.ts reads both; this says where a plan falls short).
import type { FindingSink } from './context';
import { isPyMap, pyStr, type PyMap } from '../py/value';

export function checkObjective(sink: FindingSink, root: PyMap): void {
  const verdict = root.get('verdict');
  const objective = isPyMap(verdict) ? verdict.get('objective') : undefined;
  if (objective !== 'per_dollar') return;
  const cost = root.get('cost');
  const prices = isPyMap(cost) ? cost.get('gpu_hour_usd') : undefined;
  if (prices === undefined || prices === null) {
    sink.error('objective-no-price', 'verdict.objective per_dollar needs GPU prices: add cost: {gpu_hour_usd: 3.5} (or one price per GPU model, e.g. {H100: 2.5, H200: 3.5})', ['verdict', 'objective']);
    return;
  }
  const hw = root.get('hardware');
  const gpu = isPyMap(hw) ? hw.get('gpu_model') : undefined;
  if (!isPyMap(prices) || gpu === undefined || gpu === null) return;
  const model = pyStr(gpu).toLowerCase();
  const names = [...prices.keys()].map((k) => pyStr(k));
  if (!names.some((n) => model.includes(n.toLowerCase()))) {
    sink.warn('objective-price-missing', `cost.gpu_hour_usd has no price for hardware.gpu_model ${pyStr(gpu)} (prices for ${names.join(', ')}): its candidates cannot be ranked per dollar`, ['cost', 'gpu_hour_usd']);
  }
}
