// An ssh "GPU host" for runner tests: a throwaway OpenSSH server on 127.0.0.1 whose sessions find the simulator's
// CLIs first on PATH (as a GPU host finds the real ones), with the runner's build of the load client to copy there.
import * as path from 'node:path';
import { startSshd, type Sshd } from './sshd';
import { cleanup, clientBundle, SIM_BIN, simBundle, tempDir } from './runner';

export interface SimSshHost {
  sshd: Sshd;
  /** An ssh config naming the host `sshd-test`. */
  configPath: string;
  /** The host's XDG_CACHE_HOME (where the runner keeps trial files). */
  hostCache: string;
  close(): Promise<void>;
}

export async function startSimSshHost(speed = 20): Promise<SimSshHost> {
  const js = await simBundle();
  process.env.AUTOBENCH_CLIENT_JS = await clientBundle();
  const hostCache = tempDir('autobench-host-cache-');
  const sshd = await startSshd({
    extraConfig: `SetEnv PATH=${SIM_BIN}:${path.dirname(process.execPath)}:/usr/bin:/bin AUTOBENCH_SIM_JS=${js} AUTOBENCH_NODE=${process.execPath} "AUTOBENCH_SIM_OPTS=--sim-speed ${speed}" XDG_CACHE_HOME=${hostCache}`,
  });
  return {
    sshd,
    configPath: sshd.writeConfig(),
    hostCache,
    close: async () => {
      delete process.env.AUTOBENCH_CLIENT_JS;
      await sshd.close();
      cleanup(hostCache);
    },
  };
}
