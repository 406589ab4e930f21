export * from './types.js';
export * from './stanza.js';
export { XmppTransport, type XmppEntity } from './xmpp-transport.js';
export { clientTransport, ClientTransport, type ClientTransportOptions } from './client.js';
export { Endpoints } from './endpoints.js';
export { HomeReturn } from './home.js';
export { ComponentMove, drainQuietMs, type MovableConnection, type MoveHost, type MoveResult } from './component-move.js';
export { NS_SM, fixInboundCounter } from './sm-fix.js';
export { chunkSafe, useChunkSafeParsers } from './chunk-safe-parser.js';
