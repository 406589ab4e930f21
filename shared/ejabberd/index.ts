// Public API of shared/ejabberd/ (issue 10 §2): code outside this folder imports it from here;
// modules inside it import each other directly.
export {
  CORE_AGENTS, accountSecrets, assertLocalpart, componentSecret, credentialsFor, ensureAccount,
  isAgentName, jidOf, provisionCore, removeAccount,
} from './accounts.js';
export { api, closeApiAgent, EjabberdApiError } from './api.js';
export {
  c2sEndpoints, clusterNodes, componentEndpoints, hostOf, inetrcHosts, nodeConfig, nodeHost, nodeName, nodeNetns,
  startIndex,
} from './cluster.js';
export { freePort, portOpen } from './ports.js';
export { type ComponentConnection, type ComponentKind, componentConnections } from './component-sockets.js';
