// Public API of shared/ejabberd/ (issue 10 §2): code outside this folder imports it from here;
// modules inside it import each other directly.
export {
  CORE_AGENTS, accountSecrets, assertLocalpart, componentSecret, credentialsFor, ensureAccount,
  isAgentName, jidOf, provisionCore, removeAccount,
} from './accounts.js';
export { api, closeApiAgent } from './api.js';
export {
  clusterStatus, connectedSessions, killNode, listCluster, startCluster, startNode, stopCluster,
} from './cluster-control.js';
export {
  c2sEndpoints, clusterNodes, componentEndpoints, inetrcHosts, nodeConfig, nodeHost, nodeName,
  startIndex,
} from './cluster.js';
export { ensureCertificate, exposure, exposureReport, fingerprint, installCertificate, uploadUrl } from './expose.js';
export { freePort, portOpen } from './ports.js';
export { domainBalancingYaml, renderConfig } from './render.js';
export { type TempInstance, startTempInstance } from './temp-instance.js';
export * as control from './control.js';
