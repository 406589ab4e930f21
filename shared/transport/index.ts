export * from './types.js';
export * from './stanza.js';
export { XmppTransport } from './xmpp-transport.js';
export { clientTransport, ClientTransport, type ClientTransportOptions } from './client.js';
export { componentTransport, type ComponentTransportOptions } from './component.js';
