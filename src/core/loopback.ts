// Whether a host name or address is one only its own machine answers on (localhost, 127.0.0.0/8, ::1): the runner's bind-address rules and the load client's core count both ask.

/** A name or address that only its own host answers on. */
export function isLoopbackHost(host: string): boolean {
  const h = host.trim().toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === 'ip6-localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}
