// A throwaway listener on the host at the address and port a server would bind, and connections to it from where the readiness check and the load client would come: no model is loaded.
import { connect } from 'node:net';
import type { Executor, ServerProcess } from '../../exec';

/** A program on the host that can listen and connect: node (any version) or python3. */
export interface Interpreter {
  kind: 'node' | 'python';
  path: string;
}

const BANNER = 'autobench-doctor';

// argv: HOST PORT ('' HOST: every interface). Prints LISTEN, or ERR <code>; answers each connection with the banner; gone after 60 s.
const NODE_LISTEN = `const[h,p]=process.argv.slice(1);const s=require('net').createServer(c=>c.end('${BANNER}\\n'));s.on('error',e=>{console.log('ERR '+e.code);process.exit(3)});s.listen(Number(p),h||undefined,()=>console.log('LISTEN'));setTimeout(()=>process.exit(0),60000)`;
const PY_LISTEN = [
  'import socket,sys,errno',
  'h,p=sys.argv[1],int(sys.argv[2])',
  's=socket.socket(socket.AF_INET6 if ":" in h else socket.AF_INET)',
  'try:',
  '  s.bind((h,p)); s.listen(8)',
  'except OSError as e:',
  '  print("ERR",errno.errorcode.get(e.errno,e.errno),flush=True); sys.exit(3)',
  'print("LISTEN",flush=True)',
  's.settimeout(60)',
  'while True:',
  '  try:',
  `    c,_=s.accept(); c.sendall(b"${BANNER}\\n"); c.close()`,
  '  except socket.timeout:',
  '    break',
].join('\n');
// argv: HOST PORT. Prints REACHED, NOBANNER or ERR <why>.
const NODE_CONNECT = `const[h,p]=process.argv.slice(1);const c=require('net').connect(Number(p),h);let d='';c.setTimeout(5000,()=>{console.log('ERR timeout');process.exit(4)});c.on('data',x=>d+=x);c.on('end',()=>{console.log(d.includes('${BANNER}')?'REACHED':'NOBANNER');process.exit(0)});c.on('error',e=>{console.log('ERR '+e.code);process.exit(5)})`;
const PY_CONNECT = ['import socket,sys', 'try:', '  c=socket.create_connection((sys.argv[1],int(sys.argv[2])),5); d=c.recv(64)', `  print("REACHED" if b"${BANNER}" in d else "NOBANNER")`, 'except OSError as e:', '  print("ERR",e)'].join('\n');

function argvOf(i: Interpreter, node: string, py: string, host: string, port: number): string[] {
  return i.kind === 'node' ? [i.path, '-e', node, host, String(port)] : [i.path, '-c', py, host, String(port)];
}

export type ListenResult = { ok: true; stop: () => Promise<void> } | { ok: false; code: string };

/** Starts the listener; resolves once it listens (stop it after) or says why it could not (EADDRINUSE, EADDRNOTAVAIL, ...). */
export async function listenOn(ex: Executor, i: Interpreter, host: string, port: number): Promise<ListenResult> {
  let said: (line: string) => void = () => undefined;
  const first = new Promise<string>((res) => (said = res));
  let proc: ServerProcess;
  try {
    proc = await ex.start({
      argv: argvOf(i, NODE_LISTEN, PY_LISTEN, host, port),
      tailLines: 5,
      onLine: (l) => void (/^(LISTEN|ERR)/.test(l.trim()) && said(l.trim())),
    });
  } catch (e) {
    return {
      ok: false,
      code: `the listener could not start: ${(e as Error).message}`,
    };
  }
  void proc.exited.then((x) => said(`ERR the listener ended (${x.code ?? x.signal ?? '?'}): ${proc.logTail(2).join(' ').trim()}`));
  const timer = setTimeout(() => said('ERR the listener said nothing in 30 s'), 30_000);
  const line = await first;
  clearTimeout(timer);
  const stop = async (): Promise<void> => void (await proc.stop({ graceMs: 500 }).catch(() => undefined));
  if (line === 'LISTEN') return { ok: true, stop };
  await stop();
  return { ok: false, code: line.replace(/^ERR\s*/, '') };
}

/** From the host itself (the load client placed there): connects to HOST:PORT; 'reached' or why not. */
export async function connectOnHost(ex: Executor, i: Interpreter, host: string, port: number): Promise<string> {
  const r = await ex.run(argvOf(i, NODE_CONNECT, PY_CONNECT, host, port), { timeoutMs: 30_000 }).catch((e: unknown) => ({
    stdout: `ERR ${(e as Error).message}`,
    stderr: '',
    code: 1,
  }));
  const line = r.stdout.trim().split('\n').pop() ?? '';
  return line === 'REACHED' ? 'reached' : line.replace(/^ERR\s*/, '') || `exit ${r.code ?? '?'}: ${r.stderr.trim().split('\n').pop() ?? ''}`;
}

/** From this process, through the executor's forward (the readiness check's way, and the client's when it runs here). */
export async function connectHere(ex: Executor, port: number): Promise<{ result: string; via: string }> {
  let fwd;
  try {
    fwd = await ex.forward(port);
  } catch (e) {
    return {
      result: `the port could not be forwarded: ${(e as Error).message}`,
      via: `a forward of port ${port}`,
    };
  }
  const via = `${fwd.localHost}:${fwd.localPort}`;
  try {
    const result = await new Promise<string>((res) => {
      const c = connect(fwd.localPort, fwd.localHost);
      let data = '';
      c.setTimeout(5000, () => (c.destroy(), res('timeout')));
      c.on('data', (d) => (data += d.toString()));
      c.on('end', () => res(data.includes(BANNER) ? 'reached' : 'the connection closed without an answer'));
      c.on('error', (e: NodeJS.ErrnoException) => res(e.code ?? e.message));
    });
    return { result, via };
  } finally {
    await fwd.close().catch(() => undefined);
  }
}
